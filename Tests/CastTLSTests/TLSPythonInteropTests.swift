import Foundation
import Testing

@testable import CastTLS

/// Python's `ssl` module (what pychromecast uses) as a client of the GnuTLS server.
@Suite("GnuTLS server interop with Python ssl", .timeLimit(.minutes(2)))
struct TLSPythonInteropTests {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static let script = """
        import socket, ssl, sys
        port = int(sys.argv[1])
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.maximum_version = getattr(ssl.TLSVersion, sys.argv[2])
        payload = bytes((i * 7) & 0xFF for i in range(200000))
        with socket.create_connection(("127.0.0.1", port)) as raw:
            s = ctx.wrap_socket(raw)
            s.sendall(payload)
            got = b""
            while len(got) < len(payload):
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
            der = s.getpeercert(binary_form=True)
            version = s.version()
            s.unwrap()  # sends close_notify and waits for the server's
            raw.close()
        print(version, "echo-ok" if got == payload else "echo-mismatch %d" % len(got), der.hex())
        """

    @Test(
        "a Python ssl client (CERT_NONE) handshakes, echoes 200 kB and shuts down with close_notify",
        .enabled(if: python != nil, "needs python3 with the ssl module"),
        arguments: [("TLSv1_2", "TLSv1.2"), ("TLSv1_3", "TLSv1.3")])
    func pythonClient(maximumVersion: String, expectedVersion: String) async throws {
        let credentials = try TLSTestFixtures.credentials.get()
        let server = try await TLSTestServer.start(host: "127.0.0.1", .tlsEcho(credentials))
        let result = try await runProcess(Self.python!, ["-c", Self.script, String(server.port), maximumVersion])
        #expect(result.status == 0, "python stderr: \(result.stderr)")
        let fields = result.stdout.split(separator: " ").map(String.init)
        #expect(fields.count == 3, "python stdout: \(result.stdout)")
        if fields.count == 3 {
            #expect(fields[0] == expectedVersion)
            #expect(fields[1] == "echo-ok")
            #expect(fields[2].trimmingCharacters(in: .whitespacesAndNewlines) == credentials.certificateDER.map { String(format: "%02x", $0) }.joined())
        }
        let events = await waitForServerEvent(server.events) { if case .inactive = $0 { true } else { false } }
        #expect(events.contains { if case .closeNotify = $0 { true } else { false } })
        #expect(!events.contains { if case .error = $0 { true } else { false } })
        try await server.close()
    }
}

/// Runs a program to completion, returning its exit status and output.
func runProcess(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await withCheckedThrowingContinuation { continuation in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.terminationHandler = { finished in
            let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            continuation.resume(returning: (finished.terminationStatus, out, err))
        }
        do {
            try process.run()
        } catch {
            continuation.resume(throwing: error)
        }
    }
}
