import CastJSON
import CastCore
import Synchronization

extension CastConnection {
    /// One event from the transport, on its I/O thread.
    func inbound(_ event: CastInboundEvent) {
        switch event {
        case .message(let message):
            let now = timer.elapsed()
            perform(machine { $0.received(message, now: now) })
        case .ended(let error):
            connectionEnded(cause: error ?? transport.closeReason
                ?? CastTransportError(code: .peerClosed, message: "The device closed the connection"))
        }
    }

    func connectionEnded(cause: CastTransportError) {
        let error = CastChannelError(
            code: .connectionLost, message: "Connection to \(transport.peerDescription) lost: \(cause)", transportError: cause)
        perform(machine { $0.transportEnded(error) })
    }

    // MARK: - Heartbeat

    /// PINGs on schedule and ends the connection when the receiver falls silent.
    func runHeartbeat() async {
        let peer = transport.peerDescription
        while !Task.isCancelled, isRunning {
            let now = timer.elapsed()
            let delay = state.withLock { $0.machine.heartbeatDelay(now: now) }
            do { try await timer.sleepUntil(now + delay) } catch { return }
            let tick = timer.elapsed()
            perform(machine { $0.heartbeatTick(now: tick, peer: peer) })
        }
    }
}
