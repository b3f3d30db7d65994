import CastJSON
import CastTestSupport
import CastCore
import Synchronization
import Testing

@testable import CastChannels

@Suite("CastConnection")
struct ConnectionTests {
    /// A plugin added to a closed connection is refused with the end, and leaves nothing behind
    /// that waiting for the plugins to disconnect would wait for (it waited until its deadline and
    /// answered `false`; the deadline here only bounds that failure, the pass never waits for it).
    @Test func addingToAClosedConnectionThrows() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        _ = try await connection.start()
        await connection.close()
        await #expect { try await connection.add(try RecordingPlugin()) } throws: { ($0 as? CastChannelError)?.code == .closed }
        #expect(await connection.waitUntilPluginsDisconnected(timeout: .seconds(30)))
    }

    @Test func startConnectsToThePlatformAndFetchesStatus() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        let status = try await connection.start()
        #expect(status.applications.isEmpty)
        #expect(status.volume.level == 0.5)
        #expect(status.volume.controlType == .attenuation)
        let connect = try #require(device.peer.received(type: "CONNECT").first)
        #expect(connect.destinationId == "receiver-0")
        #expect(connect.json?["senderInfo"]?["platform"] == 6)
        #expect(connect.json?["connType"] == 0)
        #expect(connection.receiverStatus == status)
        await connection.close()
        let close = await device.peer.waitFor(type: "CLOSE")
        #expect(close.destinationId == "receiver-0")
    }

    @Test func pluginConnectsOnlyOnceItsAppRunsAndIsToldWhenItStops() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        let plugin = try RecordingPlugin()
        let calls = plugin.stream
        try await connection.add(plugin)  // before start and before the app runs
        try await connection.start()
        #expect(connection.context(for: plugin) == nil)
        #expect(device.peer.received(type: "CONNECT").map(\.destinationId) == ["receiver-0"])

        let app = try await connection.receiver.launch(appId: "CHAT")
        #expect(app.transportId == FakeDevice.appTransport)
        var iterator = calls.makeAsyncIterator()
        #expect(await iterator.next() == .connect(FakeDevice.appTransport))
        // The peer records what it reads on its own task: wait for it to have read the CONNECT.
        _ = await device.peer.waitFor { $0.destinationId == FakeDevice.appTransport && $0.json?["type"]?.stringValue == "CONNECT" }
        #expect(device.peer.received(type: "CONNECT").map(\.destinationId) == ["receiver-0", FakeDevice.appTransport])

        // A round trip on the custom namespace.
        let context = try #require(connection.context(for: plugin))
        let reply = try await context.request(["type": "ECHO", "text": "hello"])
        #expect(reply.json?["text"] == "hello")
        #expect(await iterator.next() == .message("ECHOED"))  // the reply is delivered to the plugin too

        // The app stops: the receiver sends CLOSE from the app's transport.
        try await connection.receiver.stop(sessionId: app.sessionId)
        #expect(await iterator.next() == .disconnect(.closedByReceiver))
        #expect(connection.context(for: plugin) == nil)
        await connection.close()
    }

    @Test func pluginAddedWhileTheAppRunsConnectsAtOnce() async throws {
        let device = FakeDevice()
        device.running.withLock { $0 = true }
        let connection = CastConnection(transport: device.senderEnd)
        try await connection.start()
        let plugin = try RecordingPlugin()
        let calls = plugin.stream
        try await connection.add(plugin)
        #expect(await calls.first() == .connect(FakeDevice.appTransport))
        connection.remove(plugin)
        #expect(plugin.calls.withLock { $0 } == [.connect(FakeDevice.appTransport)] || plugin.calls.withLock { $0.last } == .disconnect(.removed))
        await connection.close()
    }

    @Test func appLeavingTheStatusDisconnectsItsPlugins() async throws {
        let device = FakeDevice()
        device.running.withLock { $0 = true }
        let connection = CastConnection(transport: device.senderEnd)
        let plugin = try RecordingPlugin()
        let calls = plugin.stream
        let events = connection.events
        try await connection.add(plugin)
        try await connection.start()
        var iterator = calls.makeAsyncIterator()
        #expect(await iterator.next() == .connect(FakeDevice.appTransport))
        // Another sender stopped the app; the device broadcasts a status without it (no CLOSE).
        device.running.withLock { $0 = false }
        try await device.peer.send(CastMessage(sourceId: "receiver-0", destinationId: "*",
                                               namespace: "urn:x-cast:com.google.cast.receiver",
                                               json: device.status(requestId: 0)))
        #expect(await iterator.next() == .disconnect(.appStopped))
        var sawAppClosed = false
        for await event in events {
            if case .appClosed(let transportId) = event { sawAppClosed = transportId == FakeDevice.appTransport; break }
        }
        #expect(sawAppClosed)
        await connection.close()
    }

    @Test func launchErrorsAreTypedAndCancelledIsRetriedOnce() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        try await connection.start()
        await #expect { try await connection.receiver.launch(appId: "NOPE") } throws: { error in
            let error = error as! CastChannelError
            return error.code == .launchError && error.reason == "NOT_FOUND"
        }

        let attempts = Mutex(0)
        device.peer.on(namespace: "urn:x-cast:com.google.cast.receiver", type: "LAUNCH") { message, json in
            // Shadowed by FakeDevice's own rule: never reached.
            []
        }
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let flaky = ScriptedCastPeer(transport: receiverEnd)
        flaky.on(type: "GET_STATUS") { message, json in
            [message.reply(json: ["type": "RECEIVER_STATUS", "requestId": json["requestId"]!, "status": [:]])]
        }
        flaky.on(type: "LAUNCH") { message, json in
            let attempt = attempts.withLock { $0 += 1; return $0 }
            if attempt == 1 {
                return [message.reply(json: ["type": "LAUNCH_ERROR", "requestId": json["requestId"]!, "reason": "CANCELLED"])]
            }
            return [message.broadcast(json: ["type": "RECEIVER_STATUS", "requestId": json["requestId"]!, "status": [
                "applications": [["appId": "X", "displayName": "X", "sessionId": "s", "transportId": "t", "namespaces": []]],
            ]])]
        }
        flaky.start()
        let second = CastConnection(transport: senderEnd)
        try await second.start()
        let app = try await second.receiver.launch(appId: "X")
        #expect(app.transportId == "t")
        #expect(attempts.withLock { $0 } == 2)
        await second.close()
        await connection.close()
    }

    /// A started connection to a fake device on a manual clock, with heartbeats far apart.
    static func startedOnManualClock() async throws -> (FakeDevice, ManualClock, CastConnection) {
        let device = FakeDevice()
        let clock = ManualClock()
        let connection = CastConnection(
            transport: device.senderEnd, configuration: .init(heartbeatInterval: .seconds(60), livenessTimeout: .seconds(120)),
            clock: clock)
        try await connection.start()
        return (device, clock, connection)
    }

    @Test func requestDeadlineOnAnInjectedClock() async throws {
        let (device, clock, connection) = try await Self.startedOnManualClock()
        let task = Task {
            try await connection.request(["type": "NO_ANSWER"], namespace: .receiver,
                                         destinationId: "receiver-0", timeout: .seconds(3))
        }
        _ = await device.peer.waitFor(type: "NO_ANSWER")
        await clock.waitForSleepers(count: 2)  // heartbeat + the request deadline
        await clock.advance(by: .seconds(2))
        #expect(connection.requestsInFlight == 1)
        await clock.advance(by: .seconds(1))
        await #expect { try await task.value } throws: { ($0 as? CastChannelError)?.code == .timeout }
        #expect(connection.requestsInFlight == 0)
        #expect(connection.isRunning)
        await connection.close()
    }

    @Test func anEarlierDeadlineRearmsTheOneDeadlineTask() async throws {
        let (device, clock, connection) = try await Self.startedOnManualClock()
        let namespace = CastNamespace.receiver
        let long = Task {
            try await connection.request(["type": "LONG"], namespace: namespace, destinationId: "receiver-0", timeout: .seconds(30))
        }
        _ = await device.peer.waitFor(type: "LONG")
        let short = Task {
            try await connection.request(["type": "SHORT"], namespace: namespace, destinationId: "receiver-0", timeout: .seconds(2))
        }
        _ = await device.peer.waitFor(type: "SHORT")
        #expect(connection.requestsInFlight == 2)
        await clock.advance(by: .seconds(2))
        await #expect { try await short.value } throws: {
            ($0 as? CastChannelError)?.code == .timeout && "\($0)".contains("SHORT")
        }
        #expect(connection.requestsInFlight == 1)
        await clock.advance(by: .seconds(27))
        #expect(connection.requestsInFlight == 1)
        await clock.advance(by: .seconds(1))
        await #expect { try await long.value } throws: { ($0 as? CastChannelError)?.code == .timeout }
        #expect(connection.requestsInFlight == 0)
        #expect(connection.isRunning)
        await connection.close()
    }

    @Test func heartbeatPingsAndDeclaresASilentDeviceDead() async throws {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let peer = ScriptedCastPeer(transport: receiverEnd)
        peer.on(type: "GET_STATUS") { message, json in
            [message.reply(json: ["type": "RECEIVER_STATUS", "requestId": json["requestId"]!, "status": [:]])]
        }
        peer.answersPings = false  // a device that stopped answering
        peer.start()
        let clock = ManualClock()
        let connection = CastConnection(transport: senderEnd, clock: clock)
        try await connection.start()
        let events = connection.events
        let pending = Task {
            try await connection.request(["type": "HANG"], namespace: .receiver,
                                         destinationId: "receiver-0", timeout: .seconds(60))
        }
        _ = await peer.waitFor(type: "HANG")
        await clock.waitForSleepers(count: 2)  // heartbeat timer + request deadline
        await clock.advance(by: .seconds(5))
        let ping = await peer.waitFor(type: "PING")
        #expect(ping.sourceId == "sender-0" && ping.destinationId == "receiver-0")
        #expect(connection.isRunning)
        await clock.waitForSleepers(count: 2)
        await clock.advance(by: .seconds(5))  // 10 s without any inbound message: dead
        // The request in flight fails at once, long before its 60 s deadline.
        await #expect { try await pending.value } throws: { ($0 as? CastChannelError)?.code == .heartbeatTimeout }
        var closedReason: CastChannelError?
        for await event in events {
            if case .closed(let reason) = event { closedReason = reason; break }
        }
        #expect(closedReason?.code == .heartbeatTimeout)
        #expect(!connection.isRunning)
    }

    @Test func answersTheReceiversOwnPings() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        try await connection.start()
        try await device.peer.send(CastMessage(sourceId: "Tr@n$p0rt-0", destinationId: "Tr@n$p0rt-0",
                                               namespace: "urn:x-cast:com.google.cast.tp.heartbeat", json: ["type": "PING"]))
        let pong = await device.peer.waitFor(type: "PONG")
        #expect(pong.sourceId == "Tr@n$p0rt-0" && pong.destinationId == "Tr@n$p0rt-0")
        await connection.close()
    }

    @Test func connectionLossFailsRequestsAtOnce() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd, clock: ManualClock())
        try await connection.start()
        let pending = Task {
            try await connection.request(["type": "HANG"], namespace: .receiver, destinationId: "receiver-0")
        }
        _ = await device.peer.waitFor(type: "HANG")
        device.senderEnd.fail(CastTransportError(code: .io, message: "cable pulled"))
        // No clock advance: the request fails because the connection is gone, not by its deadline.
        await #expect { try await pending.value } throws: { error in
            let error = error as! CastChannelError
            return error.code == .connectionLost && error.transportError?.code == .io
        }
        #expect(!connection.isRunning)
        #expect(connection.closeReason?.code == .connectionLost)
        await #expect(throws: CastChannelError.self) { try await connection.receiver.getStatus() }
    }

    @Test func interleavedRepliesAndBroadcastsReachTheRightPlaces() async throws {
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        let peer = ScriptedCastPeer(transport: receiverEnd)
        peer.on(type: "GET_STATUS") { message, json in
            [message.reply(json: ["type": "RECEIVER_STATUS", "requestId": json["requestId"]!, "status": [:]])]
        }
        peer.start()
        let connection = CastConnection(transport: senderEnd)
        try await connection.start()
        let messages = connection.messages
        let ns = CastNamespace.receiver
        async let first = connection.request(["type": "A"], namespace: ns, destinationId: "receiver-0")
        async let second = connection.request(["type": "B"], namespace: ns, destinationId: "receiver-0")
        let a = await peer.waitFor(type: "A")
        let b = await peer.waitFor(type: "B")
        let idA = try #require(a.json?["requestId"]?.intValue)
        let idB = try #require(b.json?["requestId"]?.intValue)
        #expect(idA > 0 && idB > 0 && idA != idB)
        // Unsolicited broadcast, a reply to a request id nobody here used, then the answers out of order.
        let unknownId = max(idA, idB) + 1000
        try await peer.send(a.broadcast(json: ["type": "NEWS", "requestId": 0]))
        try await peer.send(a.broadcast(json: ["type": "OTHER_SENDER", "requestId": .number(Double(unknownId))]))
        try await peer.send(b.reply(json: ["type": "ANSWER_B", "requestId": .number(Double(idB))]))
        try await peer.send(a.broadcast(json: ["type": "ANSWER_A", "requestId": .number(Double(idA))]))
        #expect(try await first.type == "ANSWER_A")
        #expect(try await second.type == "ANSWER_B")
        var seen: [String] = []
        for await message in messages {
            seen.append(message.type ?? "")
            if seen.count == 4 { break }
        }
        #expect(seen == ["NEWS", "OTHER_SENDER", "ANSWER_B", "ANSWER_A"])
        await connection.close()
    }

    @Test func oversizeRequestFailsBeforeAnythingIsSent() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        try await connection.start()
        let before = device.peer.received.count
        let huge = JSONValue.string(String(repeating: "x", count: 70_000))
        await #expect { try await connection.request(["type": "BIG", "blob": huge], namespace: try CastNamespace("urn:x-cast:com.example.big"), destinationId: "receiver-0") } throws: { ($0 as? CastChannelError)?.code == .messageTooLarge }
        #expect(connection.requestsInFlight == 0)
        #expect(device.peer.received.count == before)
        await connection.close()
    }

    @Test func genericChannelExposesMessagesAsASequence() async throws {
        let device = FakeDevice()
        device.running.withLock { $0 = true }
        let connection = CastConnection(transport: device.senderEnd)
        let chat = CastGenericChannel(namespace: try CastNamespace(FakeDevice.chatNamespace))
        let events = chat.events
        try await connection.add(chat)
        try await connection.start()
        var iterator = events.makeAsyncIterator()
        guard case .connected(let transportId) = await iterator.next() else { Issue.record("not connected"); return }
        #expect(transportId == FakeDevice.appTransport)
        let messages = chat.messages
        try await chat.send(["type": "ECHO", "text": "one-way"])
        var messageIterator = messages.makeAsyncIterator()
        #expect(await messageIterator.next()?.json?["text"] == "one-way")
        await connection.close()
        var disconnected = false
        while let event = await iterator.next() {
            if case .disconnected(let reason) = event { disconnected = reason == .connectionClosed; break }
        }
        #expect(disconnected)
    }
}

@Suite("CastNamespace")
struct NamespaceTests {
    @Test(arguments: ["urn:x-cast:com.example.chat", "urn:x-cast:a"])
    func acceptsCustomNamespaces(raw: String) throws {
        #expect(try CastNamespace(raw).rawValue == raw)
    }

    @Test(arguments: ["", "urn:x-cast:", "x-cast:com.example", "urn:x-cast:com.google.cast.media",
                      "urn:x-cast:has space", "urn:x-cast:" + String(repeating: "a", count: 200)])
    func rejectsInvalidNamespaces(raw: String) {
        #expect { try CastNamespace(raw) } throws: { ($0 as? CastChannelError)?.code == .invalidNamespace }
    }

    @Test func builtInsUseTheReservedPrefix() {
        #expect(CastNamespace.media.rawValue == "urn:x-cast:com.google.cast.media")
        #expect(CastNamespace.heartbeat.isTransport)
        #expect(!CastNamespace.receiver.isTransport)
    }
}

@Suite("Waiting for a plugin to connect")
struct WaitUntilConnectedTests {
    @Test func returnsOnceTheLaunchedAppsChannelHasConnected() async throws {
        let device = FakeDevice()
        let connection = CastConnection(transport: device.senderEnd)
        let chat = CastGenericChannel(namespace: try CastNamespace(FakeDevice.chatNamespace))
        try await connection.add(chat)
        try await connection.start()
        async let waited = connection.waitUntilConnected(chat)
        _ = try await connection.receiver.launch(appId: "CHAT")
        let context = try await waited
        #expect(context.transportId == FakeDevice.appTransport)
        #expect(chat.isConnected)  // channelDidConnect has run
        // Already connected: returns at once.
        #expect(try await connection.waitUntilConnected(chat).transportId == FakeDevice.appTransport)
        await connection.close()
    }

    @Test func timesOutOnTheInjectedClockWhenNoAppRuns() async throws {
        let device = FakeDevice()
        let clock = ManualClock()
        let connection = CastConnection(transport: device.senderEnd, clock: clock)
        let chat = CastGenericChannel(namespace: try CastNamespace(FakeDevice.chatNamespace))
        try await connection.add(chat)
        try await connection.start()
        let armed = clock.now.advanced(by: .seconds(2))
        let waiting = Task { try await connection.waitUntilConnected(chat, timeout: .seconds(2)) }
        await clock.waitForSleeper(until: armed)  // the wait's own timer
        await clock.advance(by: .seconds(2))
        await #expect { try await waiting.value } throws: { ($0 as? CastChannelError)?.code == .timeout }
        await connection.close()
    }
}
