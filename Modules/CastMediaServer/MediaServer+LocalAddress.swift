#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension MediaServer {
    /// The local address the system would use to reach `host` — the address a receiver can fetch media from.
    ///
    /// It connects a UDP socket to the host and reads the socket's local address back (`getsockname`). A UDP
    /// connect only consults the routing table: no packet is sent.
    /// - Parameters:
    ///   - host: the receiver's address or host name.
    ///   - port: the receiver's port (8009 for Cast); it only matters for policy routing.
    /// - Returns: an IPv4 or IPv6 literal (without brackets or zone).
    /// - Throws: ``MediaServerError`` with code ``MediaServerError/Code/addressResolution`` when the host does not
    ///   resolve, or ``MediaServerError/Code/noRoute`` when no local address reaches it.
    public static func localAddress(reaching host: String, port: Int) throws(MediaServerError) -> String {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_DGRAM
        #else
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw MediaServerError(
                code: .addressResolution, message: "Cannot resolve \(host)",
                cause: SystemCallError(call: "getaddrinfo", errorNumber: status, reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(first) }
        var lastError: SystemCallError?
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else { lastError = FileSystem.errnoError("socket"); continue }
            defer { close(descriptor) }
            guard connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                lastError = FileSystem.errnoError("connect")
                continue
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { lastError = FileSystem.errnoError("getsockname"); continue }
            if let text = numericHost(&storage, length: length) { return text }
        }
        throw MediaServerError(code: .noRoute, message: "No local address reaches \(host)", cause: lastError)
    }

    private static func numericHost(_ storage: inout sockaddr_storage, length: socklen_t) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "%").first.map(String.init)  // drop an IPv6 zone
    }
}
