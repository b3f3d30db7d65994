import Foundation
import Synchronization

/// A real HTTP server on loopback that misbehaves on purpose, for download tests: bodies that
/// never end, drip a byte a second, announce more than they send, decode into far more than they
/// send (a gzip bomb), headers that never finish, silence, or redirects where no one should follow.
///
/// Each connection reads one request and answers with the behaviour chosen for its path; every
/// connection runs on a thread of its own and ends when the client goes away.
public final class HostileHTTPServer: Sendable {
    /// How to answer a request.
    public enum Behaviour: Sendable {
        /// A complete response.
        case respond(status: Int, headers: [(String, String)], body: [UInt8])
        /// `200`, no length, then 64 KiB blocks until the client hangs up.
        case endless
        /// `200`, then one byte of `body` a second.
        case drip(body: [UInt8])
        /// Reads the request and never answers.
        case silent
        /// Sends the status line and headers one byte a second, and never finishes them.
        case slowHeaders
    }

    /// The port it listens on.
    public let port: Int
    private let routes: @Sendable (String) -> Behaviour
    /// The listening socket and the accepted ones, under one lock: a descriptor is shut down only
    /// while it is known to be open, and closed only by the thread that owns it, so a number the
    /// kernel hands out again (to an event loop's socket in the same process) is never touched.
    private struct Sockets {
        var listener: Int32
        var clients: Set<Int32> = []
        var stopped = false
    }
    private let sockets: Mutex<Sockets>
    private struct Requests {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let requests = Mutex(Requests())

    /// Requests read so far (of any path).
    public var requestCount: Int { requests.withLock { $0.count } }

    /// Suspends until at least `count` requests have been read.
    public func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = requests.withLock { requests -> Bool in
                if requests.count >= count { return true }
                requests.waiters.append((count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// `http://127.0.0.1:port` + `path`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Starts listening on a free loopback port; `routes` picks the behaviour for each request path.
    public init(routes: @escaping @Sendable (String) -> Behaviour) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(message: "socket() failed: \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ChildProcessError(message: "cannot listen on loopback: \(errno)")
        }
        sockets = Mutex(Sockets(listener: fd))
        port = Int(UInt16(bigEndian: address.sin_port))
        self.routes = routes
        Thread.detachNewThread { [self] in acceptLoop(fd) }
    }

    /// Stops listening and ends every connection (idempotent). The threads that own the
    /// descriptors close them once their blocking call returns.
    public func stop() {
        sockets.withLock { sockets in
            guard !sockets.stopped else { return }
            sockets.stopped = true
            if sockets.listener >= 0 { shutdown(sockets.listener, Int32(SHUT_RDWR)) }
            for fd in sockets.clients { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 && errno == EINTR { continue }
            if client >= 0 { _ = fcntl(client, F_SETFD, FD_CLOEXEC) }  // not inherited by a child process we spawn
            let admitted = sockets.withLock { sockets -> Bool in
                guard client >= 0, !sockets.stopped else { return false }
                sockets.clients.insert(client)
                return true
            }
            guard admitted else {
                if client >= 0 { close(client) }
                sockets.withLock { sockets in  // stop() shut it down to end accept(), or accept failed
                    close(sockets.listener)
                    sockets.listener = -1
                }
                return
            }
            Thread.detachNewThread { [self] in
                serve(client)
                sockets.withLock { sockets in
                    sockets.clients.remove(client)
                    close(client)  // under the lock: stop() cannot shut down a number reused meanwhile
                }
            }
        }
    }

    private func serve(_ fd: Int32) {
        guard let path = readRequestPath(fd) else { return }
        let ready = requests.withLock { requests -> [CheckedContinuation<Void, Never>] in
            requests.count += 1
            let count = requests.count
            var ready: [CheckedContinuation<Void, Never>] = []
            requests.waiters.removeAll { waiter in
                guard waiter.count <= count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for waiter in ready { waiter.resume() }
        switch routes(path) {
        case .respond(let status, let headers, let body):
            var head = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\nConnection: close\r\n"
            if !headers.contains(where: { $0.0.lowercased() == "content-length" }) { head += "Content-Length: \(body.count)\r\n" }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            guard sendAll(fd, Array((head + "\r\n").utf8)) else { return }
            _ = sendAll(fd, body)
        case .endless:
            guard sendAll(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nConnection: close\r\n\r\n".utf8)) else { return }
            let block = [UInt8](repeating: UInt8(ascii: "A"), count: 64 << 10)
            while sendAll(fd, block) {}
        case .drip(let body):
            guard sendAll(fd, Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)) else { return }
            for byte in body {
                guard sendAll(fd, [byte]) else { return }
                sleep(1)
            }
        case .slowHeaders:
            for byte in Array("HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nX-Padding: ".utf8) + Array(repeating: UInt8(ascii: "x"), count: 1 << 20) {
                guard sendAll(fd, [byte]) else { return }
                sleep(1)
            }
        case .silent:
            var scratch = [UInt8](repeating: 0, count: 4096)
            while scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) > 0 {}
        }
    }

    /// Reads the request head; returns the path of its request line.
    private func readRequestPath(_ fd: Int32) -> String? {
        var head = [UInt8]()
        var scratch = [UInt8](repeating: 0, count: 4096)
        while head.count < 65_536 {
            let count = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            head += scratch[..<count]
            if let text = String(bytes: head, encoding: .utf8), text.contains("\r\n\r\n") {
                let parts = text.split(separator: " ", maxSplits: 2)
                return parts.count >= 2 ? String(parts[1]) : nil
            }
        }
        return nil
    }

    /// Sends everything; `false` once the client is gone.
    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}
