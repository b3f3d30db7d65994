import CastChannels
import CastDiscoveryCore
import CastJSON
import Foundation
import Testing
@testable import Castor

/// `SessionStateMachine` alone: events in, actions out, no I/O, no tasks, no clock (time is the
/// `at:` of each step). Each scenario is a table of steps, every step the actions it must return,
/// written compactly (``SessionStateMachineTests/text(_:)``).
///
/// What the fault lab (Tests/InteropTests/FaultLab*.swift, run against `castctl cast` and against
/// the façade alone through Tests/FaultLabDriver) exercises, and the scenarios here that take the
/// machine through the same transitions:
///
/// - Every packet dropped, then the rules removed: rejoined (`dropThenKillAndRestartAreRecovered`,
///   `theFacadeAloneRejoinsAfterADropAndResumesAfterAKill`): scenario `drop`.
/// - kill -9 and a restart at the same address: an attempt refused, the app launched again, the
///   content resumed (the same two tests): `kill`, `kill then launch fails`.
/// - A restart at a new address, found again by id over mDNS
///   (`aReceiverBackAtANewAddressIsFoundAgainByItsIdOverMDNS`,
///   `theFacadeAloneFindsADeviceBackAtANewAddressByItsId`): `announced during back-off`,
///   `announced during an attempt`, `abandoned attempts count past three`.
/// - The link down, then up; the heartbeat notices, the app is rejoined
///   (`linkDownUpAndALossDuringARequestInFlight`,
///   `theFacadeAloneRejoinsAfterTheLinkWentDownAndFailsARequestInFlight`): `link down and up`,
///   `network back during an attempt`.
/// - The link up during an hour's back-off: rejoined at once, as attempt 1
///   (`theFacadeAloneRejoinsAsSoonAsTheLinkComesBack`): `network back during back-off`.
/// - A request in flight when the network goes, then a second loss, rejoined again (case 6 of the
///   two link-down tests): `two losses`.
/// - Many kill/restart cycles under one sender (`manyRestartsUnderOneSenderLeakNothing`,
///   `theFacadeAloneResumesManyRestartsInARowLeakingNothing`): `restartCycles()`, 100 cycles.
///
/// And what the fault lab's outcomes rely on without provoking it there: another sender on the
/// restarted device is not fought (`taken over after restart`), a device that stays away ends
/// the session as lost, never as closed (`gives up`, `deadline`, `never`), the receiver ending
/// the session (`app stopped`, `taken over`, `app closed`), and the user closing at any point
/// (`close …`), after which stale outcomes are only closed.
@Suite struct SessionStateMachineTests {
    typealias Machine = SessionStateMachine<String>

    // MARK: - Fixtures

    static let device = CastDevice(id: CastDeviceID(UUID(uuidString: "00000000-0000-0000-0000-000000000043")!),
                                   friendlyName: "TV", endpoints: [CastDeviceEndpoint(address: "10.77.0.1", family: .ipv4, port: 8009)])
    static let moved = CastDevice(id: device.id, friendlyName: "TV",
                                  endpoints: [CastDeviceEndpoint(address: "10.77.0.3", family: .ipv4, port: 8010)])

    static func app(_ sessionId: String, appId: String = "CC1AD845", idle: Bool = false) -> ReceiverStatus.Application {
        ReceiverStatus.Application(appId: appId, displayName: idle ? "Backdrop" : "App \(appId)", sessionId: sessionId,
                                   transportId: "t-\(sessionId)", namespaces: [], isIdleScreen: idle)
    }

    static func status(_ apps: ReceiverStatus.Application...) -> ReceiverStatus {
        // An empty status object decodes; the applications are then set directly.
        var status = try! ReceiverStatus(status: JSONValue(parsing: "{}"))
        status.applications = apps
        return status
    }

    static let ours = app("s1")
    static let relaunchedApp = app("s2")
    static let backdrop = app("idle", appId: "E8C28D3C", idle: true)
    static let otherSender = app("x9", appId: "OTHERAPP")
    static let lostError = CastError(code: .connectionLost, message: "The connection to TV: heartbeat timed out")
    static let timedOut = CastError(code: .deviceUnreachable, message: "Cannot connect to TV: timed out")
    static let refused = CastError(code: .deviceUnreachable, message: "Cannot connect to TV: connection refused")

    /// 1 s, 2 s, 4 s, at most 8 s, no jitter: delays the table can state.
    static let policy = CastReconnectPolicy(maxAttempts: 4, initialDelay: .seconds(1), maxDelay: .seconds(8), jitter: 0)

    // MARK: - The table

    /// One input: an event, or the shell's adopt of an attached connection (answered `adopted` or `refused`).
    enum Input: Sendable {
        case event(Machine.Event)
        case adopt(String, ReceiverStatus.Application)
    }

    struct Step: Sendable {
        var input: Input
        var at: Duration
        var expect: [String]
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var policy: CastReconnectPolicy = SessionStateMachineTests.policy
        var steps: [Step]
        /// The phase after the last step.
        var phase: Machine.Phase
        var testDescription: String { name }
    }

    static func on(_ event: Machine.Event, at seconds: Double = 0, _ expect: String...) -> Step {
        Step(input: .event(event), at: .milliseconds(Int64(seconds * 1000)), expect: expect)
    }

    static func adopt(_ connection: String, _ app: ReceiverStatus.Application, _ expect: String) -> Step {
        Step(input: .adopt(connection, app), at: .zero, expect: [expect])
    }

    /// The session opened on c1 with app s1.
    static let opened: [Step] = [
        adopt("c1", ours, "adopted"),
        on(.settled, "state connected"),
    ]

    /// c1 lost at 10 s; the channels drained; attempt 1 waits 1 s.
    static let lost: [Step] = opened + [
        on(.connectionClosed(lostError), at: 10, "log", "lost connectionLost", "drain"),
        on(.channelsDrained, at: 10, "watch", "state reconnecting(1)", "reconnecting 1 in 1s", "backOff #1 1s"),
    ]

    static let scenarios: [Scenario] = [
        Scenario(name: "drop", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.attemptFailed(serial: 1, timedOut), at: 21, "state reconnecting(2)", "reconnecting 2 in 2s", "backOff #2 2s"),
            on(.backOffElapsed(serial: 2), at: 23, "connect #2"),
            on(.connected(serial: 2, "c2", status(ours)), at: 23.1, "attach #2 c2 s1"),
            adopt("c2", ours, "adopted"),
            on(.settled, at: 23.2, "state connected", "log", "rejoined 2", "unwatch"),
        ], phase: .attached),

        Scenario(name: "kill", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            // Refused: the host is up, the receiver restarting; the next wait is at most 1 s, not 2 s.
            on(.attemptRefused(serial: 1, refused), at: 11.1, "state reconnecting(2)", "reconnecting 2 in 1s", "backOff #2 1s"),
            on(.backOffElapsed(serial: 2), at: 12.1, "connect #2"),
            // The restarted receiver runs only its idle screen: the app is launched again.
            on(.connected(serial: 2, "c2", status(backdrop)), at: 12.2, "launch #2 c2"),
            on(.launched(serial: 2, "c2", relaunchedApp), at: 12.5, "attach #2 c2 s2"),
            adopt("c2", relaunchedApp, "adopted"),
            on(.settled, at: 12.6, "state connected", "log", "relaunched 2", "unwatch"),
        ], phase: .attached),

        Scenario(name: "kill then launch fails", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.connected(serial: 1, "c2", status(backdrop)), at: 11.1, "launch #1 c2"),
            on(.launched(serial: 1, "c2", relaunchedApp), at: 11.5, "attach #1 c2 s2"),
            // The channels could not be added: the next attempt finds the app this round launched and joins it.
            on(.attachFailed(serial: 1, "c2", timedOut), at: 12, "close c2", "state reconnecting(2)", "reconnecting 2 in 2s", "backOff #2 2s"),
            on(.backOffElapsed(serial: 2), at: 14, "connect #2"),
            on(.connected(serial: 2, "c3", status(relaunchedApp)), at: 14.1, "attach #2 c3 s2"),
            adopt("c3", relaunchedApp, "adopted"),
            on(.settled, at: 14.2, "state connected", "relaunched 2", "unwatch"),
        ], phase: .attached),

        Scenario(name: "taken over after restart", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.connected(serial: 1, "c2", status(otherSender)), at: 11.1, "close c2", "cancelBackOff", "cancelAttempt", "unwatch",
               "finish ended(sessionTakenOver)"),
        ], phase: .ended),

        Scenario(name: "announced during back-off", steps: lost + [
            // mDNS withdraws the device (no reason to try), then announces it at its new address.
            on(.deviceListed(nil), at: 10.5),
            on(.deviceListed(moved), at: 10.6, "cancelBackOff", "log", "connect #1"),
            on(.relocated(moved), at: 10.6, "log"),
            on(.connected(serial: 1, "c2", status(backdrop)), at: 10.7, "launch #1 c2"),
            on(.launched(serial: 1, "c2", relaunchedApp), at: 11, "attach #1 c2 s2"),
            adopt("c2", relaunchedApp, "adopted"),
            on(.settled, at: 11.1, "state connected", "log", "relaunched 1", "unwatch"),
        ], phase: .attached),

        Scenario(name: "announced during an attempt", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.deviceListed(nil), at: 11.5),
            // The attempt to the old address is abandoned and does not count: attempt 1 again, at once.
            on(.deviceListed(moved), at: 12, "cancelAttempt", "log", "state reconnecting(1)", "reconnecting 1 in 0s", "connect #2"),
            // The abandoned attempt connects after all: its connection is closed, nothing else.
            on(.connected(serial: 1, "c-old", status(ours)), at: 12.1, "close c-old"),
            on(.attemptFailed(serial: 1, timedOut), at: 12.1),
            on(.relocated(moved), at: 12, "log"),
            on(.connected(serial: 2, "c2", status(ours)), at: 12.2, "attach #2 c2 s1"),
            adopt("c2", ours, "adopted"),
            on(.settled, at: 12.3, "state connected", "log", "rejoined 1", "unwatch"),
        ], phase: .attached),

        Scenario(name: "withdrawn then announced while attached", steps: opened + [
            // Discovery changes while the session is up change nothing.
            on(.deviceListed(nil), at: 1),
            on(.deviceListed(device), at: 2),
            on(.networkChanged(.linkUp(interface: "eth0")), at: 3),
        ], phase: .attached),

        Scenario(name: "link down and up", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.attemptFailed(serial: 1, timedOut), at: 21, "state reconnecting(2)", "reconnecting 2 in 2s", "backOff #2 2s"),
            on(.networkChanged(.linkUp(interface: "clfva")), at: 22, "cancelBackOff", "log", "connect #2"),
            // The network still comes up in stages: the next attempts follow within 1 s, not 4 s.
            on(.attemptFailed(serial: 2, timedOut), at: 22.5, "state reconnecting(3)", "reconnecting 3 in 1s", "backOff #3 1s"),
            on(.backOffElapsed(serial: 3), at: 23.5, "connect #3"),
            on(.connected(serial: 3, "c2", status(ours)), at: 23.6, "attach #3 c2 s1"),
            adopt("c2", ours, "adopted"),
            on(.settled, at: 23.7, "state connected", "log", "rejoined 3", "unwatch"),
        ], phase: .attached),

        Scenario(name: "network back during back-off", policy: CastReconnectPolicy(
            maxAttempts: .max, initialDelay: .seconds(3600), maxDelay: .seconds(3600), jitter: 0, timeout: .seconds(3600)), steps: opened + [
            on(.connectionClosed(lostError), at: 10, "log", "lost connectionLost", "drain"),
            on(.channelsDrained, at: 10, "watch", "state reconnecting(1)", "reconnecting 1 in 3600s", "backOff #1 3600s"),
            on(.networkChanged(.linkUp(interface: "clfvb")), at: 20, "cancelBackOff", "log", "connect #1"),
            on(.connected(serial: 1, "c2", status(ours)), at: 20.1, "attach #1 c2 s1"),
            adopt("c2", ours, "adopted"),
            on(.settled, at: 20.2, "state connected", "log", "rejoined 1", "unwatch"),
            // The hour's wait was cancelled; its timer firing late changes nothing.
            on(.backOffElapsed(serial: 1), at: 3610),
        ], phase: .attached),

        Scenario(name: "network back during an attempt", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.networkChanged(.addressAdded(interface: "eth0", address: "10.77.0.2")), at: 12,
               "cancelAttempt", "log", "state reconnecting(1)", "reconnecting 1 in 0s", "connect #2"),
            on(.attemptFailed(serial: 2, timedOut), at: 12.5, "state reconnecting(2)", "reconnecting 2 in 1s", "backOff #3 1s"),
        ], phase: .backingOff(serial: 3)),

        Scenario(name: "abandoned attempts count past three", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.deviceListed(moved), at: 11.1, "cancelAttempt", "log", "state reconnecting(1)", "reconnecting 1 in 0s", "connect #2"),
            on(.deviceListed(device), at: 11.2, "cancelAttempt", "log", "state reconnecting(1)", "reconnecting 1 in 0s", "connect #3"),
            on(.deviceListed(moved), at: 11.3, "cancelAttempt", "log", "state reconnecting(1)", "reconnecting 1 in 0s", "connect #4"),
            // The fourth abandoned attempt counts.
            on(.deviceListed(device), at: 11.4, "cancelAttempt", "log", "state reconnecting(2)", "reconnecting 2 in 0s", "connect #5"),
        ], phase: .connecting(serial: 5)),

        Scenario(name: "two losses", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.connected(serial: 1, "c2", status(ours)), at: 11.1, "attach #1 c2 s1"),
            adopt("c2", ours, "adopted"),
            on(.settled, at: 11.2, "state connected", "log", "rejoined 1", "unwatch"),
            // Lost again later: a new round, counted from 1 with the policy's first delay.
            on(.connectionClosed(lostError), at: 50, "log", "lost connectionLost", "drain"),
            on(.channelsDrained, at: 50, "watch", "state reconnecting(1)", "reconnecting 1 in 1s", "backOff #2 1s"),
            on(.backOffElapsed(serial: 2), at: 51, "connect #2"),
            on(.connected(serial: 2, "c3", status(ours)), at: 51.1, "attach #2 c3 s1"),
            adopt("c3", ours, "adopted"),
            on(.settled, at: 51.2, "state connected", "log", "rejoined 1", "unwatch"),
        ], phase: .attached),

        Scenario(name: "gives up", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.attemptFailed(serial: 1, timedOut), at: 12, "state reconnecting(2)", "reconnecting 2 in 2s", "backOff #2 2s"),
            on(.backOffElapsed(serial: 2), at: 14, "connect #2"),
            on(.attemptRefused(serial: 2, refused), at: 15, "state reconnecting(3)", "reconnecting 3 in 1s", "backOff #3 1s"),
            on(.backOffElapsed(serial: 3), at: 16, "connect #3"),
            on(.attemptFailed(serial: 3, timedOut), at: 17, "state reconnecting(4)", "reconnecting 4 in 8s", "backOff #4 8s"),
            on(.backOffElapsed(serial: 4), at: 25, "connect #4"),
            on(.attemptFailed(serial: 4, timedOut), at: 26, "cancelBackOff", "cancelAttempt", "unwatch", "finish lost(connectionLost)"),
            // Whatever comes after the end is dropped; a connection it hands over is closed.
            on(.connected(serial: 4, "c-late", status(ours)), at: 27, "close c-late"),
            on(.deviceListed(moved), at: 28),
        ], phase: .ended),

        Scenario(name: "deadline", policy: CastReconnectPolicy(maxAttempts: 10, initialDelay: .seconds(4), maxDelay: .seconds(4),
                                                               jitter: 0, timeout: .seconds(6)), steps: opened + [
            on(.connectionClosed(lostError), at: 10, "log", "lost connectionLost", "drain"),
            on(.channelsDrained, at: 10, "watch", "state reconnecting(1)", "reconnecting 1 in 4s", "backOff #1 4s"),
            on(.backOffElapsed(serial: 1), at: 14, "connect #1"),
            // 2 s left of the 6: the wait is cut to them.
            on(.attemptFailed(serial: 1, timedOut), at: 14, "state reconnecting(2)", "reconnecting 2 in 2s", "backOff #2 2s"),
            on(.backOffElapsed(serial: 2), at: 16, "connect #2"),
            // The attempt itself may outlast the deadline; no attempt starts after it.
            on(.attemptFailed(serial: 2, timedOut), at: 17, "cancelBackOff", "cancelAttempt", "unwatch", "finish lost(connectionLost)"),
        ], phase: .ended),

        Scenario(name: "never", policy: .never, steps: opened + [
            on(.connectionClosed(lostError), at: 10, "log", "lost connectionLost", "drain"),
            on(.channelsDrained, at: 10, "watch", "cancelBackOff", "cancelAttempt", "unwatch", "finish lost(connectionLost)"),
        ], phase: .ended),

        Scenario(name: "app stopped", steps: opened + [
            on(.statusSeen(status(ours)), at: 1, "status"),
            on(.statusSeen(status(backdrop)), at: 2, "status", "finish ended(sessionEnded)", "close c1"),
        ], phase: .ended),

        Scenario(name: "taken over", steps: opened + [
            on(.statusSeen(status(otherSender)), at: 2, "status", "finish ended(sessionTakenOver)", "close c1"),
        ], phase: .ended),

        Scenario(name: "app closed", steps: opened + [
            on(.appClosed(transportId: "t-other"), at: 1),
            on(.appClosed(transportId: "t-s1"), at: 2, "finish ended(sessionEnded)", "close c1"),
        ], phase: .ended),

        Scenario(name: "closed by the user", steps: opened + [
            on(.close(stopApp: true), at: 5, "stopFollowing", "cancelBackOff", "cancelAttempt", "unwatch", "stopApp c1", "close c1", "finish closed"),
            // A second close (the façade closes after a remote end) closes the connection again and finishes nothing.
            on(.close(stopApp: true), at: 6, "stopFollowing", "cancelBackOff", "cancelAttempt", "unwatch", "close c1"),
        ], phase: .ended),

        Scenario(name: "close during back-off", steps: lost + [
            on(.close(stopApp: false), at: 10.5, "stopFollowing", "cancelBackOff", "cancelAttempt", "unwatch", "close c1", "finish closed"),
            on(.backOffElapsed(serial: 1), at: 11),
        ], phase: .ended),

        Scenario(name: "close while attaching", steps: lost + [
            on(.backOffElapsed(serial: 1), at: 11, "connect #1"),
            on(.connected(serial: 1, "c2", status(ours)), at: 11.1, "attach #1 c2 s1"),
            on(.close(stopApp: false), at: 11.2, "stopFollowing", "cancelBackOff", "cancelAttempt", "unwatch", "close c1", "finish closed"),
            // The attach reaches its adopt after the close: refused, and its connection closed.
            adopt("c2", ours, "refused"),
            on(.attachFailed(serial: 1, "c2", CastError(code: .sessionEnded, message: "The session ended while connecting")), at: 11.3, "close c2"),
        ], phase: .ended),

        Scenario(name: "closed while opening", steps: [
            on(.close(stopApp: true), at: 0, "stopFollowing", "cancelBackOff", "cancelAttempt", "unwatch", "finish closed"),
            adopt("c1", ours, "refused"),
        ], phase: .ended),

        Scenario(name: "a local close of the connection is no loss", steps: opened + [
            on(.connectionClosed(nil), at: 3),
        ], phase: .attached),
    ]

    // MARK: - Tests

    @Test(arguments: scenarios)
    func scenario(_ scenario: Scenario) {
        var machine = Machine(device: Self.device, discovered: Self.device, policy: scenario.policy, seed: 43)
        for (index, step) in scenario.steps.enumerated() {
            let got: [String]
            switch step.input {
            case .event(let event):
                got = machine.receive(event, at: step.at).map(Self.text)
            case .adopt(let connection, let app):
                got = [machine.adopt(connection, app: app, status: Self.status(app)) ? "adopted" : "refused"]
            }
            #expect(got == step.expect, "step \(index + 1) of \(scenario.name): \(step.input)")
        }
        #expect(machine.phase == scenario.phase)
    }

    /// Fault-lab case 5: kill/restart cycles under one session, each relaunched; nothing piles up
    /// in the machine (the round ends with each cycle; only the attempt serial grows).
    @Test func restartCycles() {
        var machine = Machine(device: Self.device, discovered: Self.device, policy: Self.policy, seed: 1)
        let opened = machine.adopt("c0", app: Self.app("s0"), status: Self.status(Self.app("s0")))
        #expect(opened)
        #expect(machine.receive(.settled, at: .zero).map(Self.text) == ["state connected"])
        var now = Duration.zero
        for cycle in 1...100 {
            now += .seconds(30)
            let lost = machine.receive(.connectionClosed(Self.lostError), at: now).map(Self.text)
            #expect(lost == ["log", "lost connectionLost", "drain"])
            let drained = machine.receive(.channelsDrained, at: now).map(Self.text)
            let serial = 2 * cycle - 1
            #expect(drained == ["watch", "state reconnecting(1)", "reconnecting 1 in 1s", "backOff #\(serial) 1s"])
            #expect(machine.receive(.backOffElapsed(serial: serial), at: now + .seconds(1)).map(Self.text) == ["connect #\(serial)"])
            let refusedNext = machine.receive(.attemptRefused(serial: serial, Self.refused), at: now + .seconds(1)).map(Self.text)
            #expect(refusedNext == ["state reconnecting(2)", "reconnecting 2 in 1s", "backOff #\(serial + 1) 1s"])
            #expect(machine.receive(.backOffElapsed(serial: serial + 1), at: now + .seconds(2)).map(Self.text) == ["connect #\(serial + 1)"])
            let connection = "c\(cycle)"
            #expect(machine.receive(.connected(serial: serial + 1, connection, Self.status(Self.backdrop)), at: now + .seconds(2)).map(Self.text)
                    == ["launch #\(serial + 1) \(connection)"])
            let app = Self.app("s\(cycle)")
            #expect(machine.receive(.launched(serial: serial + 1, connection, app), at: now + .seconds(3)).map(Self.text)
                    == ["attach #\(serial + 1) \(connection) s\(cycle)"])
            let adopted = machine.adopt(connection, app: app, status: Self.status(app))
            #expect(adopted)
            #expect(machine.receive(.settled, at: now + .seconds(3)).map(Self.text) == ["state connected", "log", "relaunched 2", "unwatch"])
            #expect(machine.phase == .attached && machine.round == nil && machine.app == app && machine.connection == connection)
        }
    }

    /// The policy's jitter comes from the seed: the same seed gives the same delays, each within the
    /// policy's range (50 % to 100 % of the nominal delay).
    @Test func jitterIsSeededAndWithinThePolicy() {
        let policy = CastReconnectPolicy(maxAttempts: 5, initialDelay: .seconds(2), maxDelay: .seconds(2), jitter: 0.5)
        func delays(seed: UInt64) -> [Duration] {
            var machine = Machine(device: Self.device, discovered: nil, policy: policy, seed: seed)
            _ = machine.adopt("c1", app: Self.ours, status: nil)
            _ = machine.receive(.settled, at: .zero)
            _ = machine.receive(.connectionClosed(Self.lostError), at: .zero)
            var delays: [Duration] = []
            var actions = machine.receive(.channelsDrained, at: .zero)
            while case .backOff(let serial, let delay)? = actions.last {
                delays.append(delay)
                _ = machine.receive(.backOffElapsed(serial: serial), at: .zero)
                actions = machine.receive(.attemptFailed(serial: serial, Self.timedOut), at: .zero)
            }
            #expect(actions.map(Self.text).last == "finish lost(connectionLost)")
            return delays
        }
        let first = delays(seed: 7)
        #expect(first.count == 5)
        #expect(first == delays(seed: 7))
        #expect(first != delays(seed: 8))
        #expect(first.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(2) }, "\(first)")
    }

    /// The final error of a round that gave up: typed `connectionLost`, naming the attempts, the
    /// time bound and the last attempt's error, which is its cause.
    @Test func givingUpIsALossWithTheLastError() throws {
        var machine = Machine(device: Self.device, discovered: nil,
                              policy: CastReconnectPolicy(maxAttempts: 1, initialDelay: .seconds(1), jitter: 0, timeout: .seconds(30)), seed: 0)
        _ = machine.adopt("c1", app: Self.ours, status: nil)
        _ = machine.receive(.settled, at: .zero)
        _ = machine.receive(.connectionClosed(Self.lostError), at: .zero)
        _ = machine.receive(.channelsDrained, at: .zero)
        _ = machine.receive(.backOffElapsed(serial: 1), at: .seconds(1))
        let actions = machine.receive(.attemptRefused(serial: 1, Self.refused), at: .seconds(2))
        guard case .finish(.lost(let error))? = actions.last else {
            Issue.record("expected a lost end, got \(actions.map(Self.text))")
            return
        }
        #expect(error.code == .connectionLost)
        #expect(error.message == "Reconnecting to TV gave up after 1 attempts in 30.0 seconds: \(Self.refused.message)")
        #expect((error.cause as? CastError)?.message == Self.refused.message)
        #expect(Machine.End.lost(error).error?.code == .connectionLost)
        #expect(Machine.End.closed.error == nil)
    }

    // MARK: - Rendering

    /// One action as the table writes it.
    static func text(_ action: Machine.Action) -> String {
        switch action {
        case .publish(let event):
            switch event {
            case .state(.reconnecting(let attempt)): "state reconnecting(\(attempt))"
            case .state(let state): "state \(state)"
            case .receiverStatus: "status"
            case .ended(let error): "ended \(error.code)"
            case .lost(let error): "lost \(error.code)"
            case .reconnecting(let attempt, let delay): "reconnecting \(attempt) in \(seconds(delay))"
            case .rejoined(let attempt): "rejoined \(attempt)"
            case .relaunched(let attempt): "relaunched \(attempt)"
            }
        case .log: "log"
        case .drainChannels: "drain"
        case .watchNetwork: "watch"
        case .stopWatchingNetwork: "unwatch"
        case .backOff(let serial, let delay): "backOff #\(serial) \(seconds(delay))"
        case .cancelBackOff: "cancelBackOff"
        case .connect(let serial): "connect #\(serial)"
        case .cancelAttempt: "cancelAttempt"
        case .launch(let serial, let connection): "launch #\(serial) \(connection)"
        case .attach(let serial, let connection, let app): "attach #\(serial) \(connection) \(app.sessionId)"
        case .stopApp(let connection, _): "stopApp \(connection)"
        case .closeConnection(let connection): "close \(connection)"
        case .stopFollowing: "stopFollowing"
        case .finish(.closed): "finish closed"
        case .finish(.ended(let error)): "finish ended(\(error.code))"
        case .finish(.lost(let error)): "finish lost(\(error.code))"
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value))s" : "\(value)s"
    }
}
