import CastChannels
import CastDiscoveryCore
import CastMedia
import CastEmulator
import CastTestSupport
import CastCore
import Foundation
import Synchronization
import Testing
@testable import Castor

/// Connects a `Cast` to in-process emulated receivers over in-memory transports; the test can cut
/// every open connection (as a network failure would) and make devices unreachable.
final class ReceiverConnector: CastDeviceConnector {
    private struct State {
        var receivers: [CastDeviceID: EmulatedReceiver] = [:]
        var receiverEnds: [InMemoryCastTransport] = []
        var reachable = true
        var connects = 0
    }
    private let state = Mutex(State())

    func register(_ receiver: EmulatedReceiver, for device: CastDevice) {
        state.withLock { $0.receivers[device.id] = receiver }
    }

    var connects: Int { state.withLock { $0.connects } }

    func setReachable(_ reachable: Bool) { state.withLock { $0.reachable = reachable } }

    func connect(to device: CastDevice) async throws -> any CastTransport {
        let (receiver, reachable) = state.withLock { ($0.receivers[device.id], $0.reachable) }
        guard let receiver, reachable else {
            throw CastTransportError(code: .connectFailed, message: "\(device.friendlyName) is unreachable")
        }
        let (senderEnd, receiverEnd) = InMemoryCastTransport.pair()
        state.withLock {
            $0.receiverEnds.append(receiverEnd)
            $0.connects += 1
        }
        ChangeSignal.shared.bump()
        await receiver.accept(receiverEnd)
        return senderEnd
    }

    /// Closes every connection from the receivers' side, as a dropped network would.
    func dropConnections() async {
        let ends = state.withLock { state in
            defer { state.receiverEnds = [] }
            return state.receiverEnds
        }
        for end in ends { await end.close() }
    }
}

/// An emulated device and its discovery record.
struct TestDevice {
    let receiver: EmulatedReceiver
    let device: CastDevice

    static func make(_ name: String, kind: EmulatedReceiverDeviceKind = .video, volumeControl: EmulatedReceiverVolumeControl = .attenuation,
                     port: Int = 0) -> TestDevice {
        let id = UUID()
        let receiver = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(
            name: name, id: id, kind: kind, port: port, replyLatency: .zero, volumeControl: volumeControl))
        let device = CastDevice(id: CastDeviceID(id), friendlyName: name)
        return TestDevice(receiver: receiver, device: device)
    }
}

/// A castable that records only its own role.
final class LocalPlayer: Castable {
    let ended: AsyncStream<CastResumeState?>
    private let continuation: AsyncStream<CastResumeState?>.Continuation
    private let state: CastResumeState?
    let startCount = Mutex(0)

    init(state: CastResumeState?) {
        self.state = state
        (ended, continuation) = AsyncStream.makeStream()
    }
    func castStartSession() -> CastResumeState? {
        startCount.withLock { $0 += 1 }
        return state
    }
    func castEndSession(with state: CastResumeState?) { continuation.yield(state) }
}

/// An app-level delegate that records its calls.
final class Router: CastDelegate {
    enum Event: Sendable, Equatable { case started, ended(CastResumeState?) }
    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    init() { (events, continuation) = AsyncStream.makeStream() }
    func castStartSession() { continuation.yield(.started) }
    func castEndSession(with state: CastResumeState?) { continuation.yield(.ended(state)) }
}


enum Assets {
    static func movie(_ n: Int, live: Bool = false) -> CastAsset {
        .url(URL(string: "https://example.com/movie\(n).mp4")!,
             configuration: CastAssetURLConfiguration(mimeType: "video/mp4", isLive: live, duration: live ? nil : 600),
             metadata: .init(title: "Movie \(n)"))
    }
}

func makeCast(_ connector: ReceiverConnector, configuration: CastConfiguration = CastConfiguration(
    reconnectPolicy: CastReconnectPolicy(maxAttempts: 3, initialDelay: .zero, maxDelay: .zero))) -> Cast {
    Cast(configuration: configuration, connector: connector)
}
