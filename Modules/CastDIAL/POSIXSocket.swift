import Foundation

/// Owns a POSIX socket descriptor and closes it in deinit.
final class POSIXSocket: @unchecked Sendable {
    let fd: Int32

    init(fd: Int32) { self.fd = fd }
    deinit { close(fd) }

    static func error(_ what: String, code: CastDiscoveryError.Code = .socket) -> CastDiscoveryError {
        CastDiscoveryError(code: code, message: "\(what): \(String(cString: strerror(errno)))")
    }

    func setTimeout(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Resolves `host` numerically or by name and connects (blocking, bounded by `timeout`).
    static func connectTCP(host: String, port: Int, timeout: Duration) throws(CastDiscoveryError) -> POSIXSocket {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw CastDiscoveryError(code: .socket, message: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        var lastError = CastDiscoveryError(code: .socket, message: "no address for \(host)")
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let info = node {
            node = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = error("socket"); continue }
            let socket = POSIXSocket(fd: fd)
            socket.setTimeout(timeout)
            if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return socket }
            switch errno {
            case ECONNREFUSED: lastError = error("connect to \(host):\(port)", code: .connectionRefused)
            case EINPROGRESS, ETIMEDOUT, EAGAIN: lastError = CastDiscoveryError(code: .socket, message: "connect to \(host):\(port) timed out")
            default: lastError = error("connect to \(host):\(port)")
            }
        }
        throw lastError
    }

    func sendAll(_ bytes: [UInt8]) throws(CastDiscoveryError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else {
                if sent < 0 && errno == EINTR { continue }
                throw Self.error("send")
            }
            offset += sent
        }
    }

    /// Reads until the peer closes, at most `limit` bytes.
    func receiveAll(limit: Int) throws(CastDiscoveryError) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    throw CastDiscoveryError(code: .http, message: "the peer stopped sending before closing")
                }
                throw Self.error("recv")
            }
            data += buffer[..<count]
            guard data.count <= limit else {
                throw CastDiscoveryError(code: .http, message: "response exceeds \(limit) bytes")
            }
            if Self.isCompleteHTTPResponse(data) { return data }
        }
    }

    /// Whether `data` holds a whole response with a Content-Length (so a peer that keeps the
    /// connection open despite `Connection: close` is not waited for).
    static func isCompleteHTTPResponse(_ data: [UInt8]) -> Bool {
        guard let end = data.firstRange(of: [13, 10, 13, 10]) else { return false }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingSpaces())
        else { return false }
        return data.count - end.upperBound >= length
    }
}
