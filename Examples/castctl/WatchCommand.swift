import ArgumentParser
import CastChannels
import CastJSON
import CastMedia
import CastTLS
import Castor
import Foundation

/// `castctl watch`: stay connected and print every receiver and media status change.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow a device: print every receiver and media status change until Ctrl-C.",
        discussion: """
            watch only listens: it launches nothing and sends no media commands (it joins the media app's session to \
            hear its status, as every sender does). With --json each change is one JSON object on its own line: \
            {"event":"receiverStatus","status":…}, {"event":"mediaStatus","status":…|null}, \
            {"event":"connected"}, {"event":"connectionLost","message":…}, {"event":"reconnecting","attempt":N,"nextIn":S}. \
            When the device is lost (heartbeat timeout, reset, closed) watch reconnects with back-off for \
            --reconnect-timeout seconds, so it survives a restart of the device.

            Exit status: 0 Ctrl-C stopped it; 1 the first connection failed; 3 the device was lost and did not come \
            back within --reconnect-timeout.
            """)

    @OptionGroup var device: DeviceOptions
    @OptionGroup var reconnect: ReconnectOptions

    func run() async throws {
        try await Output.run {
            let interrupted = SignalFlag()
            let watcher = DeviceWatcher(options: device, policy: reconnect.policy)
            let watching = Task { await watcher.run() }
            let outcome = await interrupted.wait(orUntil: Task {
                await withTaskCancellationHandler {
                    _ = await watching.value
                    return true
                } onCancel: { watching.cancel() }
            })
            if outcome == .interrupted {
                watching.cancel()
                return
            }
            switch await watching.value {
            case .failed(let error): throw error
            case .lost(let message):
                FileHandle.standardError.write(Data("castctl: lost the device: \(message)\n".utf8))
                throw ExitCode(SessionExit.lost.rawValue)
            case .cancelled: return
            }
        }
    }
}

/// Connects, prints statuses, and reconnects under the policy when the connection drops.
struct DeviceWatcher: Sendable {
    enum Outcome: Sendable {
        case failed(any Error)
        case lost(String)
        case cancelled
    }

    let options: DeviceOptions
    let policy: CastReconnectPolicy

    func run() async -> Outcome {
        var lostAt: ContinuousClock.Instant?
        var attempt = 0
        var lastError = "the connection was lost"
        while !Task.isCancelled {
            do {
                let connection = try await connect()
                if lostAt != nil { emit("connected again", ["event": "connected", "attempt": .number(Double(attempt))]) }
                else { emit("connected", ["event": "connected"]) }
                lostAt = nil
                attempt = 0
                let closedWith = await follow(connection)
                if Task.isCancelled { return .cancelled }
                lastError = closedWith.map { $0.message } ?? "the connection closed"
                emit("connection lost: \(lastError)", ["event": "connectionLost", "message": .string(lastError)])
            } catch {
                if Task.isCancelled { return .cancelled }
                guard lostAt != nil || attempt > 0 else { return .failed(error) }
                lastError = Output.describe(error)
            }
            let started = lostAt ?? .now
            lostAt = started
            attempt += 1
            guard attempt <= policy.maxAttempts else { return .lost("gave up after \(attempt - 1) attempts: \(lastError)") }
            var delay = policy.delay(beforeAttempt: attempt, random: Double.random(in: 0..<1))
            if let timeout = policy.timeout {
                let left = timeout - started.duration(to: .now)
                guard left > .zero else { return .lost("gave up after \(attempt - 1) attempts in \(timeout): \(lastError)") }
                delay = min(delay, left)
            }
            emit(String(format: "reconnecting (attempt %d, next in %.1f s)", attempt, SessionNarrator.seconds(delay)),
                 ["event": "reconnecting", "attempt": .number(Double(attempt)), "nextIn": .number(SessionNarrator.seconds(delay))])
            do { try await Task.sleep(for: delay) } catch { return .cancelled }
        }
        return .cancelled
    }

    private func connect() async throws -> CastConnection {
        let (host, port) = try await options.target()
        let timeout = Duration.milliseconds(Int64(options.timeout * 1000))
        let transport = try await TLSCastTransport.connect(host: host, port: port, configuration: .init(connectTimeout: timeout))
        let connection = CastConnection(
            transport: transport,
            configuration: .init(userAgent: "castctl", requestTimeout: timeout, deviceAuthPolicy: options.requireGenuine ? .require : .report),
            logger: Output.logger)
        do {
            _ = try await connection.start()
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    private enum Change: Sendable {
        case receiver(ReceiverStatus)
        case media(MediaStatus?)
        case closed(CastChannelError?)
    }

    /// Prints every change until the connection closes; returns why it closed.
    private func follow(_ connection: CastConnection) async -> CastChannelError? {
        let (changes, sink) = AsyncStream<Change>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        // Asks for the status on joining: a receiver does not send it to a sender that only connects.
        let media = CastMediaChannel(timeout: .milliseconds(Int64(options.timeout * 1000)), requestsStatusOnConnect: true)
        try? await connection.add(media)
        let events = connection.events
        let statuses = media.statuses
        if let status = connection.receiverStatus { sink.yield(.receiver(status)) }
        let eventTask = Task {
            for await event in events {
                switch event {
                case .receiverStatus(let status): sink.yield(.receiver(status))
                case .closed(let error):
                    sink.yield(.closed(error))
                    return
                default: break
                }
            }
            sink.yield(.closed(nil))
        }
        let statusTask = Task { for await status in statuses { sink.yield(.media(status)) } }
        defer {
            eventTask.cancel()
            statusTask.cancel()
        }
        return await withTaskCancellationHandler {
            var lastReceiver: String?
            var lastMedia: String?
            for await change in changes {
                switch change {
                case .receiver(let status):
                    let json = status.summaryJSON
                    let key = json.serialized()
                    guard key != lastReceiver else { continue }
                    lastReceiver = key
                    emit("receiver: " + status.summaryText.replacingOccurrences(of: "\n", with: "; "),
                         ["event": "receiverStatus", "status": json])
                case .media(let status):
                    let json = status?.json ?? .null
                    let key = json.serialized()
                    guard key != lastMedia else { continue }
                    lastMedia = key
                    emit("media: " + (status?.summary ?? "no media session"), ["event": "mediaStatus", "status": json])
                case .closed(let error):
                    await connection.close()
                    return error
                }
            }
            await connection.close()
            return nil
        } onCancel: {
            sink.finish()
        }
    }

    private func emit(_ text: String, _ object: JSONValue) {
        if options.json { print(object.serialized()) } else { print("castctl: \(text)") }
        fflush(nil)
    }
}
