import CastTestSupport
import Foundation

/// An HTTP response as curl saw it.
struct CurlResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    /// The first value of a header (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

enum Curl {
    static let path: String? = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static var isAvailable: Bool { path != nil }

    /// Runs `curl -s --http1.1 -D headers -o body <arguments> url` and parses what it wrote.
    /// With several URLs, curl reuses one connection; the last response is returned.
    static func run(_ arguments: [String]) async throws -> CurlResponse {
        guard let path else { throw CurlError(message: "curl is not installed") }
        let directory = try TemporaryDirectory()
        let headerFile = directory.path + "/headers"
        let bodyFile = directory.path + "/body"
        // posix_spawn-based: Foundation's Process can fail to reap a child on Linux when several run at once.
        let child = try ChildProcess(
            path,
            ["-s", "-S", "--http1.1", "--noproxy", "*", "--max-time", "120", "-D", headerFile, "-o", bodyFile] + arguments)
        let status = await child.waitForExit()
        let errorText = child.errorOutput
        guard status == 0 else {
            throw CurlError(message: "curl exited with \(status): \(errorText)")
        }
        let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))).map { [UInt8]($0) } ?? []
        // With several responses, keep the last block.
        let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        guard let last = blocks.last else { throw CurlError(message: "no response headers") }
        var lines = last.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw CurlError(message: "bad status line") }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return CurlResponse(status: status, headers: headers, body: body)
    }
}

struct CurlError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Parses a `multipart/byteranges` body: each part's headers and bytes.
func parseMultipart(_ body: [UInt8], boundary: String) -> [(headers: [String: String], data: [UInt8])]? {
    let delimiter = Array("--\(boundary)".utf8)
    func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard needle.count <= body.count else { return nil }
        var index = start
        while index + needle.count <= body.count {
            if body[index] == needle[0] && Array(body[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
    var parts: [(headers: [String: String], data: [UInt8])] = []
    guard var cursor = find(delimiter, from: 0), cursor == 0 else { return nil }
    while true {
        cursor += delimiter.count
        if Array(body[cursor..<min(cursor + 2, body.count)]) == Array("--".utf8) {
            return Array(body[(cursor + 2)...]) == Array("\r\n".utf8) ? parts : nil
        }
        guard Array(body[cursor..<(cursor + 2)]) == [13, 10], let headerEnd = find([13, 10, 13, 10], from: cursor) else { return nil }
        let headerText = String(decoding: body[(cursor + 2)..<headerEnd], as: UTF8.self)
        var headers: [String: String] = [:]
        for line in headerText.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let dataStart = headerEnd + 4
        // The part ends at CRLF + delimiter; the data length comes from Content-Range so binary data cannot confuse us.
        guard let range = headers["content-range"], let (first, last) = parseContentRange(range) else { return nil }
        let dataEnd = dataStart + Int(last - first + 1)
        guard dataEnd + 2 <= body.count, Array(body[dataEnd..<(dataEnd + 2)]) == [13, 10] else { return nil }
        parts.append((headers, Array(body[dataStart..<dataEnd])))
        cursor = dataEnd + 2
        guard find(delimiter, from: cursor) == cursor else { return nil }
    }
}

/// `bytes a-b/size` → (a, b).
func parseContentRange(_ text: String) -> (Int64, Int64)? {
    guard text.hasPrefix("bytes ") else { return nil }
    let spec = text.dropFirst(6).split(separator: "/").first ?? ""
    let bounds = spec.split(separator: "-")
    guard bounds.count == 2, let a = Int64(bounds[0]), let b = Int64(bounds[1]) else { return nil }
    return (a, b)
}
