import CastTestSupport
import Foundation

/// GETs a URL with curl (a client we did not write) and returns the status and body.
enum HTTPFetch {
    static func get(_ url: String, into path: String? = nil) async throws -> (status: Int, body: [UInt8]) {
        let curl = try #require(["/usr/bin/curl", "/usr/local/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) },
                                "curl is not installed (apt-get install curl)")
        let output = path ?? NSTemporaryDirectory() + "castor-fetch-\(UUID().uuidString)"
        defer { if path == nil { unlink(output) } }
        let child = try ChildProcess(curl, ["-s", "-S", "--noproxy", "*", "--max-time", "120", "-o", output, "-w", "%{http_code}", url])
        _ = await child.waitForExit()
        let status = Int(child.output.joined()) ?? 0
        let body = (try? Data(contentsOf: URL(fileURLWithPath: output))).map { [UInt8]($0) } ?? []
        return (status, body)
    }
}

import Testing
