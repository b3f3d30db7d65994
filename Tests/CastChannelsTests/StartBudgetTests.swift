import CastJSON
import CastTestSupport
import CastTLS
import Foundation
import Testing

@testable import CastChannels

/// `start()` has one budget, the request timeout: the device-authentication wait is the smaller
/// of its own limit and that budget, and GET_STATUS gets what is left. All on a manual clock.
@Suite("CastConnection.start: one budget for device authentication and the first status")
struct StartBudgetTests {
    /// A connection whose device authentication runs (a certificate is given) against `device`.
    static func connection(to transport: InMemoryCastTransport, clock: ManualClock, requestTimeout: Duration,
                           deviceAuthTimeout: Duration) -> CastConnection {
        CastConnection(
            transport: transport,
            configuration: .init(heartbeatInterval: .seconds(60), livenessTimeout: .seconds(120),
                                 requestTimeout: requestTimeout, deviceAuthTimeout: deviceAuthTimeout),
            clock: clock, peerCertificateDER: [0x30, 0x00], deviceVerifier: CastGenuineDeviceVerifier())
    }

    static func waitForSleeper(at offset: Duration, on clock: ManualClock) async {
        await clock.waitForSleeper(until: ManualClock.Instant(offset: offset))
    }

    @Test("a silent device: the device-authentication wait is cut to the start budget and start fails with what it waited for")
    func deviceAuthWaitIsCutToTheBudget() async throws {
        let device = FakeDevice()
        device.peer.on(namespace: CastNamespace.deviceAuth.rawValue, type: nil) { _, _ in [] }  // never answers the challenge
        let clock = ManualClock()
        let connection = Self.connection(to: device.senderEnd, clock: clock, requestTimeout: .seconds(3),
                                         deviceAuthTimeout: .seconds(5))
        let start = Task { try await connection.start() }
        await Self.waitForSleeper(at: .seconds(3), on: clock)
        #expect(!clock.sleeperDeadlines.contains(ManualClock.Instant(offset: .seconds(5))))
        await clock.advance(by: .seconds(3))
        let error = await #expect(throws: CastChannelError.self) { try await start.value }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("device-authentication challenge") == true)
        #expect(error?.message.contains("3 s") == true)
        #expect(device.peer.received(type: "GET_STATUS").isEmpty, "nothing was left for GET_STATUS")
        #expect(!connection.isRunning)
    }

    @Test("device authentication gives up at its own limit; GET_STATUS gets only the rest of the budget")
    func getStatusGetsWhatIsLeft() async throws {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let silent = ScriptedCastPeer(transport: receiverEnd)
        silent.on(namespace: nil, type: nil) { _, _ in [] }  // answers nothing at all
        silent.start()
        let clock = ManualClock()
        let connection = Self.connection(to: senderEnd, clock: clock, requestTimeout: .seconds(3), deviceAuthTimeout: .seconds(1))
        let start = Task { try await connection.start() }
        await Self.waitForSleeper(at: .seconds(1), on: clock)
        await clock.advance(by: .seconds(1))
        _ = await silent.waitFor(type: "GET_STATUS")
        #expect(connection.deviceAuthStatus != .notChecked)
        await Self.waitForSleeper(at: .seconds(3), on: clock)
        await clock.advance(to: ManualClock.Instant(offset: .milliseconds(2999)))
        #expect(connection.requestsInFlight == 1)
        await clock.advance(to: ManualClock.Instant(offset: .seconds(3)))
        let error = await #expect(throws: CastChannelError.self) { try await start.value }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("GET_STATUS") == true)
        #expect(error?.message.contains("within 2 s") == true)
    }

    @Test("a device that answers: start returns without the clock moving")
    func answeringDevice() async throws {
        let device = FakeDevice()  // answers the challenge with an AuthError, as a device without credentials
        let clock = ManualClock()
        let connection = Self.connection(to: device.senderEnd, clock: clock, requestTimeout: .seconds(3),
                                         deviceAuthTimeout: .seconds(5))
        let status = try await connection.start()
        #expect(status.volume.level == 0.5)
        if case .failed(let error) = connection.deviceAuthStatus {
            #expect(error.code == .receiverError)
        } else {
            Issue.record("expected the device's AuthError, got \(connection.deviceAuthStatus)")
        }
        #expect(clock.now == ManualClock.Instant(offset: .zero))
        await connection.close()
    }
}
