import CastTestSupport
import CastTransport
import Foundation
import NIOPosix
import Testing

@testable import CastChannels

/// A Cast device served by OpenSSL (`Tests/Peers/openssl_peer.py device`): Python's `ssl` with its
/// defaults, which in TLS 1.3 sends session tickets after the handshake. Our sender runs on a
/// manual clock that never moves: every reply must arrive on its own, not when a timer (a
/// heartbeat PING drawing a PONG, a deadline) happens to bring more bytes.
@Suite(
    "CastConnection against an OpenSSL device", .enabled(if: OpenSSLPeer.isAvailable, "needs python3 with the ssl module"),
    .timeLimit(.minutes(1)), .serialized)
struct OpenSSLDeviceTests {
    /// One certificate for every device (PEM files written once), instead of a key generated per device.
    static let certificateFiles: Result<(certificate: String, key: String), any Error> = Result {
        let credentials = try TLSCredentials.selfSigned()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castor-openssl-device-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        try credentials.certificatePEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try credentials.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        return (certificate, key)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var version: String
        var tickets: Int
        var coalesce: Bool
        var midSession: String
        var testDescription: String {
            "TLS \(version), \(tickets) tickets\(coalesce ? " with the first reply" : ""), mid-session \(midSession)"
        }
    }

    static let cases: [Case] = [
        Case(version: "1.2", tickets: 2, coalesce: false, midSession: "none"),
        Case(version: "1.3", tickets: 0, coalesce: false, midSession: "none"),
        Case(version: "1.3", tickets: 2, coalesce: false, midSession: "none"),
        Case(version: "1.3", tickets: 2, coalesce: true, midSession: "none"),
        Case(version: "1.3", tickets: 3, coalesce: true, midSession: "none"),
        Case(version: "1.3", tickets: 2, coalesce: false, midSession: "ticket"),
        Case(version: "1.3", tickets: 2, coalesce: false, midSession: "keyupdate"),
    ]

    @Test("start and a later request complete without the clock advancing", arguments: cases)
    func repliesArriveOnTheirOwn(_ test: Case) async throws {
        let files = try Self.certificateFiles.get()
        let device = try await OpenSSLDevice.start([
            "--max-version", test.version, "--tickets", String(test.tickets), "--mid-session", test.midSession,
        ] + (test.coalesce ? ["--coalesce"] : []), certificateFile: files.certificate, keyFile: files.key)
        // Connect and handshake run on real time: a budget no loaded CI machine runs out of (the
        // default 10 s did under make test). What is asserted runs on the manual clock below.
        let transport = try await TLSCastTransport.connect(
            host: "127.0.0.1", port: device.port, configuration: .init(connectTimeout: .seconds(60)))
        #expect(transport.tlsVersion == "TLS\(test.version)")
        let clock = ManualClock()
        let connection = CastConnection(
            transport: transport, configuration: .init(heartbeatInterval: .seconds(5), livenessTimeout: .seconds(10)),
            clock: clock)
        let status = try await connection.start()
        #expect(status.volume.level == 0.5)
        // The device answered the challenge (with an AuthError): the answer was delivered, not timed out.
        if case .failed(let error) = connection.deviceAuthStatus {
            #expect(error.code == .receiverError)
        } else {
            Issue.record("unexpected device-authentication status \(connection.deviceAuthStatus)")
        }
        // A second RECEIVER_STATUS, behind a NewSessionTicket or KeyUpdate in mid-session cases.
        let again = try await connection.receiver.setVolume(level: 0.3)
        #expect(again.volume.level == 0.5)
        #expect(clock.now == ManualClock.Instant(offset: .zero), "no timer was needed")
        await connection.close()
    }

    /// A caller preferring the connection's task executor against OpenSSL (TLS 1.3, session tickets after the
    /// handshake and a KeyUpdate in mid-session): start, a later request and close each complete, and the
    /// caller is on the same event loop after every one of them.
    @Test func aCallerOnTheConnectionsLoopIsAnsweredThere() async throws {
        let files = try Self.certificateFiles.get()
        let device = try await OpenSSLDevice.start(
            ["--max-version", "1.3", "--tickets", "2", "--mid-session", "keyupdate"],
            certificateFile: files.certificate, keyFile: files.key)
        let transport = try await TLSCastTransport.connect(
            host: "127.0.0.1", port: device.port, configuration: .init(connectTimeout: .seconds(60)))
        let connection = CastConnection(transport: transport)
        let loops = try await withTaskExecutorPreference(transport.taskExecutor) {
            var loops: [ObjectIdentifier?] = []
            func here() { loops.append(MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0 as AnyObject) }) }
            let status = try await connection.start()
            #expect(status.volume.level == 0.5)
            here()
            let again = try await connection.receiver.setVolume(level: 0.3)
            #expect(again.volume.level == 0.5)
            here()
            await connection.close()
            here()
            return loops
        }
        #expect(loops.count == 3 && loops.allSatisfy { $0 != nil } && Set(loops).count == 1, "\(loops)")
    }
}
