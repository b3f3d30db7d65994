import Synchronization

/// Shared plumbing for browsers: a ``DeviceTable`` and the current diagnostics behind a lock,
/// and any number of event streams fed from them.
package final class DeviceEventHub: Sendable {
    private struct State {
        var table = DeviceTable()
        var diagnostics: [String: DiscoveryDiagnostic] = [:]
        var subscribers: [Int: AsyncStream<DeviceBrowserEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var finished = false
    }
    private let state = Mutex(State())

    /// A hub with no devices.
    package init() {}

    /// See ``DeviceBrowser/devices``.
    package var devices: [CastDevice] { state.withLock { $0.table.devices } }
    /// See ``DeviceBrowser/diagnostics``.
    package var diagnostics: [DiscoveryDiagnostic] {
        state.withLock { $0.diagnostics.values.sorted { $0.description < $1.description } }
    }
    /// The device with this id.
    package func device(_ id: CastDeviceID) -> CastDevice? { state.withLock { $0.table.device(id) } }
    /// The id observed under `key`.
    package func deviceID(forObservation key: String) -> CastDeviceID? {
        state.withLock { $0.table.deviceID(forObservation: key) }
    }

    /// See ``DeviceBrowser/events()``.
    package func events() -> AsyncStream<DeviceBrowserEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceBrowserEvent.self, bufferingPolicy: .unbounded)
        let id: Int? = state.withLock { state in
            for device in state.table.devices { continuation.yield(.added(device)) }
            for diagnostic in state.diagnostics.values { continuation.yield(.diagnostic(diagnostic)) }
            if state.finished { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            // Never wait for the lock here: a consumer's task is cancelled while the runtime holds that
            // task's status lock, and a publisher yielding under our lock needs the same task lock to
            // resume it (a deadlock seen in CI). If the lock is busy, the next publish finds the stream
            // terminated and removes it.
            _ = self?.state.withLockIfAvailable { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Records an observation and publishes the resulting events.
    package func upsert(_ key: String, _ device: CastDevice) {
        state.withLock { state in
            guard !state.finished else { return }
            Self.publish(state.table.upsert(key, device), to: &state.subscribers)
        }
    }

    /// Forgets an observation and publishes the resulting events.
    package func remove(_ key: String) {
        state.withLock { state in
            Self.publish(state.table.remove(key), to: &state.subscribers)
        }
    }

    /// Forgets every observation under `prefix`.
    package func removeAll(prefix: String = "") {
        state.withLock { state in
            Self.publish(state.table.removeAll(prefix: prefix), to: &state.subscribers)
        }
    }

    /// Sets a diagnostic (keyed by code and subject); publishes it when new or changed.
    package func report(_ diagnostic: DiscoveryDiagnostic) {
        state.withLock { state in
            let key = "\(diagnostic.code)|\(diagnostic.subject ?? "")"
            guard state.diagnostics[key] != diagnostic, !state.finished else { return }
            state.diagnostics[key] = diagnostic
            Self.publish([.diagnostic(diagnostic)], to: &state.subscribers)
        }
    }

    /// Clears diagnostics with this code (and subject, when given).
    package func clear(_ code: DiscoveryDiagnostic.Code, subject: String? = nil) {
        state.withLock { state in
            state.diagnostics = state.diagnostics.filter { _, value in
                !(value.code == code && (subject == nil || value.subject == subject))
            }
        }
    }

    /// Finishes every stream; later `events()` streams end after the snapshot.
    package func finish(removingDevices: Bool) {
        let subscribers = state.withLock { state -> [AsyncStream<DeviceBrowserEvent>.Continuation] in
            if removingDevices { Self.publish(state.table.removeAll(), to: &state.subscribers) }
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }

    /// Reopens after ``finish(removingDevices:)`` (a browser started again).
    package func reopen() {
        state.withLock { $0.finished = false }
    }

    /// Yields under the lock (events keep their order across subscribers); removes terminated streams.
    private static func publish(_ events: [DeviceBrowserEvent],
                                to subscribers: inout [Int: AsyncStream<DeviceBrowserEvent>.Continuation]) {
        var terminated: [Int] = []
        for event in events {
            for (id, continuation) in subscribers {
                if case .terminated = continuation.yield(event) { terminated.append(id) }
            }
        }
        for id in terminated { subscribers.removeValue(forKey: id) }
    }
}
