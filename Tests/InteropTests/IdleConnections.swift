import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Raw TCP connections to a loopback port that never send a byte, held open and replaced as soon as
/// the server closes one (a peer that ties up a server's descriptors), on a thread of their own until
/// ``stop()``.
final class IdleConnections: Sendable {
    private let port: Int
    private let count: Int
    private let stopping = Mutex(false)
    private let counters = Mutex((opened: 0, closedByServer: 0))
    private let done = DispatchSemaphore(value: 0)

    /// Opens `count` connections to `port` and keeps that many open.
    init(port: Int, count: Int) {
        self.port = port
        self.count = count
        Thread.detachNewThread { [self] in
            run()
            done.signal()
        }
    }

    /// Connections opened so far, and how many of them the server closed.
    var opened: Int { counters.withLock { $0.opened } }
    var closedByServer: Int { counters.withLock { $0.closedByServer } }

    /// Closes every connection and ends the thread.
    func stop() {
        stopping.withLock { $0 = true }
        done.wait()
    }

    private func run() {
        var descriptors: [Int32] = []
        defer { for fd in descriptors { close(fd) } }
        while !stopping.withLock({ $0 }) {
            while descriptors.count < count {
                let fd = connectWithoutWaiting()
                guard fd >= 0 else { break }
                descriptors.append(fd)
                counters.withLock { $0.opened += 1 }
            }
            var polls = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 50) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            for entry in polls where entry.revents != 0 {
                // Readable: the server closed it (EOF or reset); an idle peer never gets data.
                let got = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard got <= 0, !(got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) else { continue }
                close(entry.fd)
                descriptors.removeAll { $0 == entry.fd }
                counters.withLock { $0.closedByServer += 1 }
            }
        }
    }

    /// A non-blocking connect to the loopback port (it completes in the kernel's backlog; nothing waits for it).
    private func connectWithoutWaiting() -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            close(fd)
            return -1
        }
        return fd
    }
}
