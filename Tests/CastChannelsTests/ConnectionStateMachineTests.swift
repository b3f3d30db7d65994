import CastJSON
import Foundation
import CastCore
import Testing

@testable import CastChannels

/// The sender connection's logic, case by case, without tasks, sockets or clocks: each input's
/// actions are checked as written.
@Suite("ConnectionStateMachine")
struct ConnectionStateMachineTests {
    enum Types: ConnectionStateMachineTypes {
        typealias Reply = String
        typealias Plugin = String
        typealias ConnectWaiter = Int
        typealias AuthWaiter = Int
    }
    typealias Machine = ConnectionStateMachine<Types>

    static let media = "urn:x-cast:com.google.cast.media"
    static let receiverNamespace = "urn:x-cast:com.google.cast.receiver"

    /// A short, comparable description of an action.
    static func describe(_ action: Machine.Action) -> String {
        switch action {
        case .send(let message):
            let type = message.json?["type"]?.stringValue ?? "?"
            return "send \(type) \(message.sourceId)->\(message.destinationId)"
        case .completeRequest(let reply, let message): return "complete \(reply) \(message.type ?? "?")"
        case .failRequest(let reply, let error): return "fail \(reply) \(error.code)"
        case .connectPlugin(let plugin, let link): return "connect \(plugin) \(link.transportId) \(link.sessionId ?? "-")"
        case .deliver(let plugin, _, let message): return "deliver \(plugin) \(message.type ?? "?")"
        case .disconnectPlugin(let plugin, _, let reason): return "disconnect \(plugin) \(reason)"
        case .finishPlugin(let plugin): return "finish \(plugin)"
        case .resumeConnectWaiters(let plugin, let waiters, let result):
            switch result {
            case .success(let link): return "resume \(plugin) \(waiters) \(link.transportId)"
            case .failure(let error): return "resume \(plugin) \(waiters) \(error.code)"
            }
        case .deviceAuthEnded(let waiter, let end):
            switch end {
            case .answered: return "auth \(waiter) answered"
            case .unanswered: return "auth \(waiter) unanswered"
            case .failed(let error): return "auth \(waiter) \(error.code)"
            }
        case .publish(let event):
            switch event {
            case .receiverStatus(let status): return "event status \(status.applications.map(\.transportId))"
            case .appClosed(let transportId): return "event appClosed \(transportId)"
            case .deviceAuthenticated: return "event auth"
            case .closed(let error): return "event closed \(error.map { "\($0.code)" } ?? "nil")"
            }
        case .publishMessage(let message): return "publish \(message.type ?? "?")"
        case .armDeadline(let wake): return "arm \(wake)"
        case .cancelDeadline: return "cancel deadline"
        case .warn: return "warn"
        case .ended(let error, let closeTransport):
            return "ended \(error.map { "\($0.code)" } ?? "nil") close=\(closeTransport)"
        }
    }

    static func describe(_ actions: [Machine.Action]) -> [String] { actions.map(describe) }

    static func running(configuration: CastConnectionConfiguration = .default) throws -> Machine {
        var machine = Machine(configuration: configuration, firstRequestId: 7, now: .zero)
        try machine.start()
        return machine
    }

    static func inbound(_ namespace: String, from source: String = "receiver-0", to destination: String = "sender-0", _ json: String) -> CastMessage {
        CastMessage(sourceId: source, destinationId: destination, namespace: namespace, payload: .string(json))
    }

    static func receiverStatus(apps: [(transport: String, session: String)], requestId: Int = 0) -> CastMessage {
        let list = apps.map {
            #"{"appId":"CC1AD845","displayName":"Default Media Receiver","sessionId":"\#($0.session)","transportId":"\#($0.transport)","namespaces":[{"name":"urn:x-cast:com.google.cast.media"}]}"#
        }.joined(separator: ",")
        return inbound(receiverNamespace, #"{"type":"RECEIVER_STATUS","requestId":\#(requestId),"status":{"applications":[\#(list)]}}"#)
    }

    static func start(_ machine: inout Machine, namespace: String = media, to destination: String = "t1", reply: String,
                      deadline: Duration = .seconds(10)) throws -> Int {
        let started = try machine.startRequest(
            namespace: namespace, destinationId: destination, reply: reply, deadline: deadline, timeout: deadline, label: "SEEK",
            accept: { _ in true })
        return started.id
    }

    @Test func nothingRunsBeforeStartAndStartIsOnce() throws {
        var machine = Machine(configuration: .default, firstRequestId: 1, now: .zero)
        #expect(throws: CastChannelError.self) { _ = try Self.start(&machine, reply: "r") }
        #expect(machine.openVirtualConnection(to: "receiver-0").isEmpty)
        try machine.start()
        #expect(throws: CastChannelError.self) { try machine.start() }
        #expect(Self.describe(machine.openVirtualConnection(to: "receiver-0")) == ["send CONNECT sender-0->receiver-0"])
        #expect(machine.openVirtualConnection(to: "receiver-0").isEmpty, "one CONNECT per virtual connection")
        machine.virtualConnectionFailed(to: "receiver-0")
        #expect(machine.openVirtualConnection(to: "receiver-0").count == 1, "a failed CONNECT is sent again")
    }

    @Test func oneDeadlineIsArmedForTheEarliestRequest() throws {
        var machine = try Self.running()
        let first = try machine.startRequest(
            namespace: Self.media, destinationId: "t1", reply: "a", deadline: .seconds(10), timeout: .seconds(10), label: "SEEK",
            accept: { _ in true })
        #expect(first.id == 7)
        #expect(Self.describe(first.actions) == ["arm 10.0 seconds"])
        let later = try machine.startRequest(
            namespace: Self.media, destinationId: "t1", reply: "b", deadline: .seconds(12), timeout: .seconds(12), label: "PLAY",
            accept: { _ in true })
        #expect(later.id == 8)
        #expect(later.actions.isEmpty, "a later deadline costs nothing")
        let earlier = try machine.startRequest(
            namespace: Self.media, destinationId: "t1", reply: "c", deadline: .seconds(3), timeout: .seconds(3), label: "PAUSE",
            accept: { _ in true })
        #expect(Self.describe(earlier.actions) == ["arm 3.0 seconds"])
        #expect(Self.describe(machine.deadlineReached(now: .seconds(3), peer: "p")) == ["fail c timeout", "arm 10.0 seconds"])
        #expect(Self.describe(machine.deadlineReached(now: .seconds(11), peer: "p")) == ["fail a timeout", "arm 12.0 seconds"])
        #expect(Self.describe(machine.abandonRequest(later.id, error: CastChannelError(code: .cancelled, message: "x")))
            == ["fail b cancelled"])
        #expect(machine.requestsInFlight == 0)
        #expect(machine.deadlineReached(now: .seconds(12), peer: "p").isEmpty)
    }

    @Test func aReplyReachesPluginsAndListenersThenCompletesItsRequest() throws {
        var machine = try Self.running()
        #expect(try machine.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application).isEmpty)
        // The app starts: the plugin's virtual connection opens before the plugin is told.
        let status = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .seconds(1))
        #expect(Self.describe(status) == [
            "send CONNECT sender-0->t1", "connect media t1 s1", "event status [\"t1\"]", "publish RECEIVER_STATUS",
        ])
        let id = try Self.start(&machine, reply: "seek")
        let reply = Self.inbound(Self.media, from: "t1", to: "*", #"{"type":"MEDIA_STATUS","requestId":\#(id),"status":[]}"#)
        #expect(Self.describe(machine.received(reply, now: .seconds(2)))
            == ["deliver media MEDIA_STATUS", "publish MEDIA_STATUS", "complete seek MEDIA_STATUS"])
        // The same id again is not a reply any more; a message from another app is not the plugin's.
        #expect(Self.describe(machine.received(reply, now: .seconds(2))) == ["deliver media MEDIA_STATUS", "publish MEDIA_STATUS"])
        let other = Self.inbound(Self.media, from: "t9", #"{"type":"MEDIA_STATUS","requestId":0}"#)
        #expect(Self.describe(machine.received(other, now: .seconds(2))) == ["publish MEDIA_STATUS"])
        // Not for this sender: ignored.
        #expect(machine.received(Self.inbound(Self.media, from: "t1", to: "sender-9", #"{"type":"X"}"#), now: .seconds(2)).isEmpty)
    }

    @Test func anAppLeavingDisconnectsItsPluginsAndFailsItsRequests() throws {
        var machine = try Self.running()
        _ = try machine.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application)
        _ = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .zero)
        _ = try Self.start(&machine, reply: "load")
        #expect(Self.describe(machine.received(Self.receiverStatus(apps: []), now: .zero)) == [
            "disconnect media appStopped", "fail load appClosed", "event appClosed t1", "event status []", "publish RECEIVER_STATUS",
        ])
        // A new app: CONNECT again, then the plugin.
        #expect(Self.describe(machine.received(Self.receiverStatus(apps: [("t2", "s2")]), now: .zero)).prefix(2)
            == ["send CONNECT sender-0->t2", "connect media t2 s2"])
        // The receiver closes the virtual connection.
        _ = try Self.start(&machine, to: "t2", reply: "play")
        let close = Self.inbound("urn:x-cast:com.google.cast.tp.connection", from: "t2", #"{"type":"CLOSE"}"#)
        #expect(Self.describe(machine.received(close, now: .zero))
            == ["fail play appClosed", "disconnect media closedByReceiver", "event appClosed t2"])
    }

    @Test func pingsAreAnsweredAndSilenceEndsTheConnection() throws {
        var configuration = CastConnectionConfiguration.default
        configuration.heartbeatInterval = .seconds(5)
        configuration.livenessTimeout = .seconds(10)
        var machine = try Self.running(configuration: configuration)
        let ping = Self.inbound("urn:x-cast:com.google.cast.tp.heartbeat", from: "Tr@n$p0rt-0", to: "Tr@n$p0rt-0", #"{"type":"PING"}"#)
        #expect(Self.describe(machine.received(ping, now: .seconds(4))) == ["send PONG Tr@n$p0rt-0->Tr@n$p0rt-0"])
        #expect(machine.heartbeatDelay(now: .seconds(4)) == .seconds(5))
        #expect(Self.describe(machine.heartbeatTick(now: .seconds(9), peer: "p")) == ["send PING sender-0->receiver-0"])
        _ = try Self.start(&machine, reply: "r")
        let dead = machine.heartbeatTick(now: .seconds(14), peer: "p")
        #expect(Self.describe(dead) == ["fail r heartbeatTimeout", "cancel deadline", "warn", "ended heartbeatTimeout close=true"])
        #expect(machine.closeReason?.code == .heartbeatTimeout)
        #expect(machine.received(ping, now: .seconds(15)).isEmpty, "nothing after the end")
    }

    @Test func theEndFailsEverythingOnceAndTellsEveryPlugin() throws {
        var machine = try Self.running()
        _ = try machine.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application)
        _ = try machine.add("platform", key: ObjectIdentifier(Machine.self), namespace: "urn:x-cast:custom", endpoint: .platform)
        _ = machine.openVirtualConnection(to: "receiver-0")
        _ = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .zero)
        #expect(try machine.waitUntilConnected(key: ObjectIdentifier(Types.self), namespace: Self.media, waiter: 1) == nil)
        _ = try Self.start(&machine, reply: "r")
        let lost = CastChannelError(code: .connectionLost, message: "gone")
        #expect(Self.describe(machine.transportEnded(lost)) == [
            "fail r connectionLost", "disconnect media connectionLost", "finish media", "resume media [1] connectionLost",
            "disconnect platform connectionLost", "finish platform", "cancel deadline", "warn", "ended connectionLost close=false",
        ])
        #expect(machine.transportEnded(lost).isEmpty && machine.close().isEmpty, "the end happens once")
        #expect(throws: CastChannelError.self) { _ = try Self.start(&machine, reply: "late") }
    }

    @Test func closeSendsCloseToAppsBeforeThePlatform() throws {
        var machine = try Self.running()
        _ = machine.openVirtualConnection(to: "receiver-0")
        _ = try machine.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application)
        _ = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .zero)
        #expect(Self.describe(machine.close()) == [
            "send CLOSE sender-0->t1", "send CLOSE sender-0->receiver-0", "disconnect media connectionClosed", "finish media",
            "ended nil close=true",
        ])
        #expect(machine.closeReason == nil && !machine.isRunning)
    }

    /// A plugin added after the end would never be told anything: adding it throws the end.
    @Test func addingAfterTheEndThrowsTheEnd() throws {
        var machine = try Self.running()
        _ = machine.close()
        #expect { _ = try machine.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application) }
            throws: { ($0 as? CastChannelError)?.code == .closed }
        var lost = try Self.running()
        let reason = CastChannelError(code: .connectionLost, message: "gone")
        _ = lost.transportEnded(reason)
        #expect { _ = try lost.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application) }
            throws: { ($0 as? CastChannelError)?.code == .connectionLost }
        // Before start a plugin can be added: it connects once the connection runs.
        var idle = Machine(configuration: .default, firstRequestId: 7, now: .zero)
        #expect(try idle.add("media", key: ObjectIdentifier(Types.self), namespace: Self.media, endpoint: .application).isEmpty)
    }

    @Test func connectWaitersResumeWhenThePluginHasBeenTold() throws {
        var machine = try Self.running()
        let key = ObjectIdentifier(Types.self)
        #expect(throws: CastChannelError.self) { _ = try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 0) }
        _ = try machine.add("media", key: key, namespace: Self.media, endpoint: .application)
        #expect(throws: CastChannelError.self, "one plugin per namespace and endpoint") {
            _ = try machine.add("again", key: ObjectIdentifier(Machine.self), namespace: Self.media, endpoint: .application)
        }
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 1) == nil)
        _ = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .zero)
        let link = try #require(machine.link(for: key))
        #expect(Self.describe(machine.connectDelivered(key: key, link: link)) == ["resume media [1] t1"])
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 2) == link)
        machine.disconnectDelivered(key: key, link: link)
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 3) == nil)
        #expect(Self.describe(machine.remove(key: key)) == ["disconnect media removed", "finish media", "resume media [3] notConnected"],
                "a task waiting for a removed plugin fails at once, not at its deadline")
    }

    @Test("what a removed registration's mailbox still delivers does not touch the plugin added again")
    func anEarlierRegistrationCannotTouchTheNewOne() throws {
        var machine = try Self.running()
        let key = ObjectIdentifier(Types.self)
        _ = machine.openVirtualConnection(to: "receiver-0")
        _ = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .zero)
        _ = try machine.add("media", key: key, namespace: Self.media, endpoint: .application)
        let first = try #require(machine.generation(of: key))
        let link = try #require(machine.link(for: key))
        _ = machine.remove(key: key)
        _ = try machine.add("media", key: key, namespace: Self.media, endpoint: .application)
        let second = try #require(machine.generation(of: key))
        #expect(second != first)
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 1) == nil)
        // The old mailbox reports its connect and its disconnect late: neither counts for the new slot.
        #expect(machine.connectDelivered(key: key, generation: first, link: link).isEmpty)
        #expect(Self.describe(machine.connectDelivered(key: key, generation: second, link: link)) == ["resume media [1] t1"])
        machine.disconnectDelivered(key: key, generation: first, link: link)
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 2) == link, "still connected")
        machine.disconnectDelivered(key: key, generation: second, link: link)
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 3) == nil)
    }

    @Test func aPluginThatFellBehindIsDroppedAndTheConnectionGoesOn() throws {
        var machine = try Self.running()
        let key = ObjectIdentifier(Types.self)
        _ = machine.openVirtualConnection(to: "receiver-0")
        _ = try machine.add("media", key: key, namespace: Self.media, endpoint: .application)
        _ = machine.received(Self.receiverStatus(apps: [("t1", "s1")]), now: .zero)
        #expect(try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 5) == nil)
        #expect(Self.describe(machine.pluginFellBehind(key: key, limit: 3)) == [
            "warn", "disconnect media overloaded", "finish media", "resume media [5] notConnected",
        ])
        #expect(machine.link(for: key) == nil && machine.isRunning)
        #expect(machine.pluginFellBehind(key: key, limit: 3).isEmpty, "dropped once")
        let status = Self.inbound(Self.media, from: "t1", #"{"type":"MEDIA_STATUS","requestId":0,"status":[]}"#)
        #expect(!Self.describe(machine.received(status, now: .zero)).contains { $0.hasPrefix("deliver") }, "nothing more for it")
        #expect(throws: CastChannelError.self, "it was never added, as far as the connection knows") {
            _ = try machine.waitUntilConnected(key: key, namespace: Self.media, waiter: 6)
        }
        #expect(try machine.add("media", key: key, namespace: Self.media, endpoint: .application).map(Self.describe) == [
            "connect media t1 s1",
        ], "added again, it connects again")
    }

    static let challenge = CastMessage(
        sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.google.cast.tp.deviceauth",
        payload: .binary(Data([8, 0])))

    @Test func theDeviceAuthAnswerGoesToItsWaiterOnce() throws {
        var machine = try Self.running()
        let answer = Self.inbound("urn:x-cast:com.google.cast.tp.deviceauth", "{}")
        #expect(machine.received(answer, now: .zero).isEmpty, "no challenge out: ignored")
        #expect(Self.describe(machine.startDeviceAuth(
            challenge: Self.challenge, waiter: 4, deadline: .seconds(5), isStartBudget: false, budget: .seconds(10))) == [
            "send ? sender-0->receiver-0", "arm 5.0 seconds",
        ])
        #expect(Self.describe(machine.received(answer, now: .zero)) == ["auth 4 answered"])
        #expect(machine.received(answer, now: .zero).isEmpty)
        #expect(!machine.isAuthenticatingDevice)
    }

    /// The loss of the connection during device authentication (the device answered the challenge with
    /// an oversized frame, garbage, a close or a reset) ends the wait at once with that cause: before,
    /// the wait was outside the machine and lasted until the authentication timeout.
    @Test func aLossDuringDeviceAuthEndsTheWaitAtOnceWithItsCause() throws {
        var machine = try Self.running()
        _ = machine.startDeviceAuth(challenge: Self.challenge, waiter: 4, deadline: .seconds(5), isStartBudget: false,
                                    budget: .seconds(10))
        let cause = CastTransportError(code: .frameTooLarge, message: "Frame announces 100000 bytes; the limit is 65536")
        let actions = machine.transportEnded(CastChannelError(code: .connectionLost, message: "lost", transportError: cause))
        #expect(Self.describe(actions).contains("auth 4 connectionLost"))
        guard let ended = actions.first(where: { if case .deviceAuthEnded = $0 { true } else { false } }),
            case .deviceAuthEnded(_, .failed(let error)) = ended
        else { return #expect(Bool(false), "no end of the exchange in \(Self.describe(actions))") }
        #expect(error.transportError?.code == .frameTooLarge)
        #expect(!machine.isAuthenticatingDevice)
        #expect(machine.deadlineReached(now: .seconds(5), peer: "d").isEmpty, "nothing left to time out")
    }

    @Test func theDeviceAuthDeadlineIsTheAuthTimeoutOrTheStartBudget() throws {
        var own = try Self.running()
        _ = own.startDeviceAuth(challenge: Self.challenge, waiter: 1, deadline: .seconds(5), isStartBudget: false, budget: .seconds(10))
        #expect(Self.describe(own.deadlineReached(now: .seconds(4), peer: "d")) == ["arm 5.0 seconds"], "early: armed again")
        #expect(Self.describe(own.deadlineReached(now: .seconds(5), peer: "d")) == ["auth 1 unanswered"])

        var budget = try Self.running()
        _ = budget.startDeviceAuth(challenge: Self.challenge, waiter: 2, deadline: .seconds(3), isStartBudget: true, budget: .seconds(3))
        #expect(Self.describe(budget.deadlineReached(now: .seconds(3), peer: "d")) == ["auth 2 timeout"])

        // A request started meanwhile keeps its own deadline; the earlier of the two is armed.
        var both = try Self.running()
        _ = both.startDeviceAuth(challenge: Self.challenge, waiter: 3, deadline: .seconds(5), isStartBudget: false, budget: .seconds(10))
        let started = try both.startRequest(namespace: Self.receiverNamespace, destinationId: "receiver-0", reply: "r",
                                            deadline: .seconds(2), timeout: .seconds(2), label: "GET_STATUS", accept: { _ in true })
        #expect(Self.describe(started.actions) == ["arm 2.0 seconds"])
        #expect(Self.describe(both.deadlineReached(now: .seconds(2), peer: "d")) == ["fail r timeout", "arm 5.0 seconds"])
    }

    @Test func closingDuringDeviceAuthEndsTheWait() throws {
        var machine = try Self.running()
        _ = machine.startDeviceAuth(challenge: Self.challenge, waiter: 4, deadline: .seconds(5), isStartBudget: false,
                                    budget: .seconds(10))
        #expect(Self.describe(machine.close()).contains("auth 4 closed"))
    }
}
