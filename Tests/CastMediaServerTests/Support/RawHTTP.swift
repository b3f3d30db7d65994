import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response read off a raw socket.
struct RawResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

struct RawHTTPError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A blocking TCP connection to 127.0.0.1 that sends arbitrary bytes and parses HTTP/1.1 responses.
/// Use it from one thread (inside ``onBlockingThread(_:)``).
final class RawConnection: @unchecked Sendable {  // used by one thread at a time, handed over between awaits
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawHTTPError(message: "socket failed") }
        // A safety net so a broken server fails the test instead of hanging it (not a timing assertion).
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw RawHTTPError(message: "connect failed: errno \(errno)")
        }
    }

    deinit { close(descriptor) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawHTTPError(message: "send failed: errno \(errno)") }
            sent += n
        }
    }

    /// Reads more bytes; false at end of stream or on a reset.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer += chunk[0..<n]
            return true
        }
        if n == 0 || errno == ECONNRESET { return false }
        throw RawHTTPError(message: "recv failed: errno \(errno)")
    }

    /// Reads one response. `bodyless` for HEAD requests. `nil` when the server closed without answering.
    func readResponse(bodyless: Bool = false) throws -> RawResponse? {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let headText = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = headText.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                    throw RawHTTPError(message: "bad status line \(headText)")
                }
                let headers = lines.compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                var response = RawResponse(status: status, headers: headers, body: [])
                let length = bodyless || status == 304 || status == 204 ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
                while buffer.count < length {
                    guard try fill() else { throw RawHTTPError(message: "connection closed mid-body") }
                }
                response.body = Array(buffer[..<length])
                buffer.removeFirst(length)
                return response
            }
            guard try fill() else {
                if buffer.isEmpty { return nil }
                throw RawHTTPError(message: "connection closed mid-head")
            }
        }
    }

    /// Reads and discards exactly `count` bytes (headers included); returns how many were read before EOF.
    func readBytes(_ count: Int) throws -> Int {
        var total = 0
        while total < count {
            if buffer.isEmpty { guard try fill() else { break } }
            let take = min(buffer.count, count - total)
            buffer.removeFirst(take)
            total += take
        }
        return total
    }

    /// Everything until the server closes the connection.
    func readUntilClosed() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for index in 0...(buffer.count - needle.count) where buffer[index] == needle[0] {
            if Array(buffer[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }
}

/// Sends one request on a fresh connection and reads the response.
func rawRequest(port: Int, _ request: String, bodyless: Bool = false) async throws -> RawResponse? {
    try await onBlockingThread {
        let connection = try RawConnection(port: port)
        try connection.send(request)
        return try connection.readResponse(bodyless: bodyless)
    }
}
