import Foundation
import Synchronization

/// OpenSSL (Python's `ssl` over memory BIOs on a real socket) as a TLS peer for tests:
/// `Tests/Peers/openssl_peer.py` in script mode, one command per line, each answered by one
/// numbered line (see the script for the commands).
///
/// ```swift
/// let peer = try await OpenSSLPeer.start(.server, version: "1.3", tickets: 2,
///                                        certificatePEM: cert, privateKeyPEM: key)
/// // connect our client to peer.port, then:
/// try await peer.run("accept")
/// try await peer.run("handshake")
/// try await peer.run("write hello")
/// let sent = try await peer.flush()   // ciphertext bytes sent so far
/// ```
public final class OpenSSLPeer: Sendable {
    /// Which side the peer plays.
    public enum Role: String, Sendable {
        /// Listens on ``port`` and presents the given certificate.
        case server
        /// Connects to a port.
        case client
    }

    /// The Python to run: `$CASTOR_PYTHON` (the Makefile's venv), else the system's python3.
    public static let python: String? = {
        let candidates = [ProcessInfo.processInfo.environment["CASTOR_PYTHON"], "/usr/bin/python3", "/usr/local/bin/python3"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// The peer script, found from this file's place in the repository.
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/Peers/openssl_peer.py").path

    /// Whether OpenSSL peers can run here: a Python 3 and the peer script.
    public static let isAvailable = python != nil && FileManager.default.fileExists(atPath: script)

    /// The child process.
    public let process: ChildProcess
    /// The port a server-role peer listens on (0 for a client).
    public let port: Int
    private let sequence = Mutex(0)
    private let directory: URL?

    private init(process: ChildProcess, port: Int, directory: URL?) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    deinit {
        process.closeInput()
        kill(process.pid, SIGKILL)
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// Starts a peer. A server listens on a free loopback port (``port``) presenting the given
    /// certificate and key; a client connects to `port` on its `connect` command.
    /// - Parameters:
    ///   - role: a server (it listens) or a client (it connects).
    ///   - version: the highest TLS version, `"1.2"` or `"1.3"`.
    ///   - tickets: TLS 1.3 session tickets a server sends after the handshake.
    ///   - port: the loopback port a client connects to (unused by a server).
    ///   - certificatePEM: the certificate a server presents (PEM); a fresh self-signed one when `nil`.
    ///   - privateKeyPEM: the private key of `certificatePEM` (PEM).
    ///   - extraArguments: more options for the script (for example `["--rcvbuf", "4096"]`).
    public static func start(
        _ role: Role, version: String, tickets: Int = 2, connectTo port: Int = 0,
        certificatePEM: String? = nil, privateKeyPEM: String? = nil, extraArguments: [String] = []
    ) async throws -> OpenSSLPeer {
        guard let python else { throw OpenSSLPeerError(message: "no python3") }
        var arguments = [script, "script", "--role", role.rawValue, "--max-version", version, "--tickets", String(tickets),
                         "--timeout", "60"] + extraArguments
        var directory: URL?
        if role == .server, let certificatePEM, let privateKeyPEM {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castor-openssl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try certificatePEM.write(to: folder.appendingPathComponent("cert.pem"), atomically: true, encoding: .utf8)
            try privateKeyPEM.write(to: folder.appendingPathComponent("key.pem"), atomically: true, encoding: .utf8)
            arguments += ["--cert", folder.appendingPathComponent("cert.pem").path, "--key", folder.appendingPathComponent("key.pem").path]
            directory = folder
        } else if role == .client {
            arguments += ["--port", String(port)]
        }
        let process = try ChildProcess(python, arguments, standardInput: true)
        guard let first = await process.waitForLine(where: { $0.hasPrefix("0 ") }) else {
            throw OpenSSLPeerError(message: "the OpenSSL peer did not start: \(process.errorOutput)")
        }
        let words = first.split(separator: " ")
        let listening = words.count == 3 && words[1] == "PORT" ? Int(words[2]) ?? 0 : 0
        return OpenSSLPeer(process: process, port: listening, directory: directory)
    }

    /// Runs one command and returns the words of its answer (without the number).
    /// - Throws: ``OpenSSLPeerError`` when the peer answered `ERROR` or exited.
    @discardableResult
    public func run(_ command: String) async throws -> [String] {
        let number = sequence.withLock { value -> Int in
            value += 1
            return value
        }
        guard process.writeLine(command) else { throw OpenSSLPeerError(message: "the OpenSSL peer's input is closed") }
        guard let line = await process.waitForLine(where: { $0.hasPrefix("\(number) ") }) else {
            throw OpenSSLPeerError(message: "the OpenSSL peer exited during '\(command)': \(process.errorOutput)")
        }
        let words = line.split(separator: " ").dropFirst().map(String.init)
        if words.first == "ERROR" { throw OpenSSLPeerError(message: "'\(command)': \(words.joined(separator: " "))") }
        return words
    }

    /// Sends everything queued in one write (or `chunk`-byte writes 1 ms apart); returns the
    /// ciphertext bytes sent on the connection so far.
    public func flush(chunk: Int = 0) async throws -> Int {
        let answer = try await run(chunk > 0 ? "flushsplit \(chunk) 1" : "flush")
        guard answer.first == "SENT", answer.count == 2, let total = Int(answer[1]) else {
            throw OpenSSLPeerError(message: "unexpected answer to flush: \(answer)")
        }
        return total
    }

    /// Reads `count` bytes of plaintext (fewer when the connection ends first).
    public func read(_ count: Int) async throws -> [UInt8] {
        let answer = try await run("read \(count)")
        return answer.count == 2 ? OpenSSLPeer.bytes(hex: answer[1]) : []
    }

    /// The bytes the script's `writepattern` command produces at `offset`.
    public static func pattern(offset: Int, count: Int) -> [UInt8] {
        (offset..<(offset + count)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 8)) }
    }

    /// Bytes from the script's hex output (`-` for none).
    public static func bytes(hex: String) -> [UInt8] {
        guard hex != "-" else { return [] }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}

/// `Tests/Peers/openssl_peer.py device`: a minimal Cast device over OpenSSL (answers device
/// authentication with an AuthError, CONNECT, PING, GET_STATUS and SET_VOLUME), killed when released.
public final class OpenSSLDevice: Sendable {
    /// The child process.
    public let process: ChildProcess
    /// The port it listens on.
    public let port: Int

    /// Starts a device with the script's device options, for example
    /// `["--max-version", "1.3", "--tickets", "3", "--coalesce"]`, presenting the given certificate
    /// and key (PEM files), or one the script makes with the `openssl` command when none is given.
    public static func start(_ arguments: [String], certificateFile: String? = nil, keyFile: String? = nil) async throws -> OpenSSLDevice {
        guard let python = OpenSSLPeer.python else { throw OpenSSLPeerError(message: "no python3") }
        var arguments = arguments
        if let certificateFile, let keyFile { arguments += ["--cert", certificateFile, "--key", keyFile] }
        let process = try ChildProcess(python, [OpenSSLPeer.script, "device"] + arguments)
        guard let line = await process.waitForLine(where: { $0.hasPrefix("PORT ") }), let port = Int(line.dropFirst(5)) else {
            throw OpenSSLPeerError(message: "the OpenSSL device did not start: \(process.errorOutput)")
        }
        return OpenSSLDevice(process: process, port: port)
    }

    private init(process: ChildProcess, port: Int) {
        self.process = process
        self.port = port
    }

    deinit { kill(process.pid, SIGKILL) }
}

/// An OpenSSL peer failed or answered with an error.
public struct OpenSSLPeerError: Error, CustomStringConvertible {
    /// What happened.
    public var message: String
    /// Creates an error.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
