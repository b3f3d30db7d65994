import CastChannels
import CastJSON
import CastMedia
import CastTLS
import Foundation
import NIOCore
import NIOPosix

/// The measurements over sockets: connect, media round trips, many devices at once.
enum Network {
    static func configuration(_ arguments: Arguments) throws -> CastConnectionConfiguration {
        let policy: CastDeviceAuthPolicy
        switch arguments.values["auth"] ?? "off" {
        case "off": policy = .off
        case "report": policy = .report
        case let other: throw BenchError("--auth wants off or report, got \(other)")
        }
        return CastConnectionConfiguration(userAgent: "castor-bench", deviceAuthPolicy: policy)
    }

    /// Opens a device connection: TLS, (device authentication), CONNECT, GET_STATUS → RECEIVER_STATUS.
    static func open(port: Int, _ configuration: CastConnectionConfiguration, plugins: [any CastChannelPlugin] = [])
        async throws -> CastConnection
    {
        let transport = try await TLSCastTransport.connect(host: "127.0.0.1", port: port)
        let connection = CastConnection(transport: transport, configuration: configuration)
        for plugin in plugins { try await connection.add(plugin) }
        try await connection.start()
        return connection
    }

    /// `connect --port P --runs N [--auth off|report]`: connect → first RECEIVER_STATUS, N times (plus one
    /// untimed warm-up). `--kind floor` times a raw GnuTLS handshake plus one round trip to the echo port instead;
    /// `--kind phases` times the TLS connection and `CastConnection.start()` apart (samples alternate).
    static func connect(_ arguments: Arguments) async throws {
        let port = try arguments.int("port", 0)
        let runs = try arguments.int("runs", 20)
        let floor = arguments.values["kind"] == "floor"
        let phases = arguments.values["kind"] == "phases"
        let configuration = try configuration(arguments)
        let clock = ContinuousClock()
        let request = RawTLS.request(size: try arguments.int("request-bytes", 160), replySize: try arguments.int("reply-bytes", 600))
        let replySize = try arguments.int("reply-bytes", 600)
        var samples = Samples()
        for run in 0...runs {
            let start = clock.now
            if floor {
                let client = try await RawTLS.Client.connect(port: port, group: MultiThreadedEventLoopGroup.singleton)
                try await client.roundTrip(request, replySize: replySize)
                let elapsed = clock.now - start
                await client.close()
                if run > 0 { samples.add(elapsed) }
            } else if phases {
                let transport = try await TLSCastTransport.connect(host: "127.0.0.1", port: port)
                let connected = clock.now
                let connection = CastConnection(transport: transport, configuration: configuration)
                try await connection.start()
                let started = clock.now
                if run > 0 {
                    samples.add(connected - start)
                    samples.add(started - connected)
                }
                await connection.close()
            } else {
                let connection = try await open(port: port, configuration)
                let elapsed = clock.now - start
                await connection.close()
                if run > 0 { samples.add(elapsed) }
            }
        }
        emit(["samples_us": samples.values])
    }

    /// `seek --port P --count N [--caller pool|loop]`: launches the Default Media Receiver, loads a video,
    /// then times N SEEKs, each until its MEDIA_STATUS (after 20 untimed ones). Reports the message sizes too.
    ///
    /// `--caller loop` runs the SEEKs in a task that prefers the connection's task executor (its event
    /// loop), as an application does with `withTaskExecutorPreference(connection.transport.taskExecutor)`;
    /// `pool` (the default) runs them on the shared cooperative pool.
    static func seek(_ arguments: Arguments) async throws {
        let port = try arguments.int("port", 0)
        let count = try arguments.int("count", 1000)
        let media = CastMediaChannel()
        let connection = try await open(port: port, try configuration(arguments), plugins: [media])
        try await withTaskExecutorPreference(try arguments.callerExecutor(loop: connection.transport.taskExecutor)) {
            try await seekRounds(count: count, media: media, connection: connection)
        }
    }

    private static func seekRounds(count: Int, media: CastMediaChannel, connection: CastConnection) async throws {
        let app = try await connection.receiver.launch(appId: CastAppID.defaultMediaReceiver)
        _ = try await connection.waitUntilConnected(media)
        try await media.load(Fixture.media, startTime: 0)
        // The sizes of one exchange, for the floor's echo.
        let reply = try await media.request(["type": "SEEK", "currentTime": 5], needsSession: true)
        let sent = CastMessage(sourceId: connection.configuration.senderId, destinationId: app.transportId,
                               namespace: CastNamespace.media.rawValue,
                               json: ["type": "SEEK", "currentTime": 5, "requestId": 123456, "mediaSessionId": .number(Double(media.mediaSessionId ?? 1))])
        let replyMessage = CastMessage(sourceId: reply.sourceId, destinationId: reply.destinationId,
                                       namespace: reply.namespace, payload: reply.payload)
        let clock = ContinuousClock()
        var samples = Samples()
        for index in 0..<(count + 20) {
            let start = clock.now
            let status = try await media.seek(to: Double(10 + index % 500))
            let elapsed = clock.now - start
            guard status.currentTime >= Double(10 + index % 500) - 1 else {
                throw BenchError("SEEK answered with position \(status.currentTime)")
            }
            if index >= 20 { samples.add(elapsed) }
        }
        _ = try? await connection.receiver.stop(sessionId: app.sessionId)
        await connection.close()
        emit(["samples_us": samples.values, "request_bytes": sent.encodedSize + 4, "reply_bytes": replyMessage.encodedSize + 4])
    }

    /// `floor-rtt --port E --count N --request-bytes a --reply-bytes b [--caller pool|loop]`: N raw TLS
    /// round trips on one connection; `--caller loop` runs them in a task that prefers the connection's
    /// event loop, as `seek --caller loop` does.
    static func floorRoundTrips(_ arguments: Arguments) async throws {
        let port = try arguments.int("port", 0)
        let count = try arguments.int("count", 1000)
        let replySize = try arguments.int("reply-bytes", 1500)
        let request = RawTLS.request(size: try arguments.int("request-bytes", 200), replySize: replySize)
        let client = try await RawTLS.Client.connect(port: port, group: MultiThreadedEventLoopGroup.singleton)
        try await withTaskExecutorPreference(try arguments.callerExecutor(loop: EventLoopTaskExecutor(client.channel.eventLoop))) {
            try await floorRounds(count: count, client: client, request: request, replySize: replySize)
        }
    }

    private static func floorRounds(count: Int, client: RawTLS.Client, request: ByteBuffer, replySize: Int) async throws {
        let clock = ContinuousClock()
        var samples = Samples()
        for index in 0..<(count + 20) {
            let start = clock.now
            try await client.roundTrip(request, replySize: replySize)
            if index >= 20 { samples.add(clock.now - start) }
        }
        await client.close()
        emit(["samples_us": samples.values])
    }

    /// `hold --ports a-b [--auth off|report] [--hold-seconds s]`: connects to every port at once from this
    /// process and reports resident memory per device, threads, and the time until all were connected.
    static func hold(_ arguments: Arguments) async throws {
        if arguments.values["kind"] == "floor" { return try await holdFloor(arguments) }
        let ports = try arguments.ports("ports")
        let configuration = try configuration(arguments)
        let holdSeconds = try arguments.int("hold-seconds", 6)
        // Warm up: libraries, event loops, TLS globals, one full connection, then closed again.
        let warm = try await open(port: ports[0], configuration)
        await warm.close()
        try await Task.sleep(for: .milliseconds(200))
        let rssBefore = ProcSelf.residentKiB()
        let threadsBefore = ProcSelf.threadCount()
        let clock = ContinuousClock()
        let start = clock.now
        let connections = try await withThrowingTaskGroup(of: CastConnection.self) { group in
            for port in ports {
                group.addTask { try await open(port: port, configuration) }
            }
            var all: [CastConnection] = []
            for try await connection in group { all.append(connection) }
            return all
        }
        let connectSeconds = toSeconds(clock.now - start)
        let rssConnected = ProcSelf.residentKiB()
        let threadsConnected = ProcSelf.threadCount()
        // Hold them through at least one heartbeat round (PING every 5 s).
        try await Task.sleep(for: .seconds(holdSeconds))
        let rssHeld = ProcSelf.residentKiB()
        let threadsHeld = ProcSelf.threadCount()
        let running = connections.filter(\.isRunning).count
        for connection in connections { await connection.close() }
        emit([
            "devices": ports.count, "connect_s": connectSeconds, "running_after_hold": running,
            "rss_before_kib": rssBefore, "rss_connected_kib": rssConnected, "rss_held_kib": rssHeld,
            "threads_before": threadsBefore, "threads_connected": threadsConnected, "threads_held": threadsHeld,
            "hold_s": holdSeconds,
        ])
    }

    /// `hold --kind floor --port E --devices N`: N raw GnuTLS connections at once to the echo port,
    /// one round trip each: the floor for "all connected within 2 s".
    static func holdFloor(_ arguments: Arguments) async throws {
        let port = try arguments.int("port", 0)
        let devices = try arguments.int("devices", 1000)
        let group = MultiThreadedEventLoopGroup.singleton
        let request = RawTLS.request(size: 160, replySize: 600)
        let warm = try await RawTLS.Client.connect(port: port, group: group)
        await warm.close()
        let rssBefore = ProcSelf.residentKiB()
        let clock = ContinuousClock()
        let start = clock.now
        let clients = try await withThrowingTaskGroup(of: RawTLS.Client.self) { tasks in
            for _ in 0..<devices {
                tasks.addTask {
                    let client = try await RawTLS.Client.connect(port: port, group: group)
                    try await client.roundTrip(request, replySize: 600)
                    return client
                }
            }
            var all: [RawTLS.Client] = []
            for try await client in tasks { all.append(client) }
            return all
        }
        let connectSeconds = toSeconds(clock.now - start)
        let rssConnected = ProcSelf.residentKiB()
        for client in clients { await client.close() }
        emit(["devices": devices, "connect_s": connectSeconds, "rss_before_kib": rssBefore, "rss_connected_kib": rssConnected])
    }
}
