import CastJSON
import CastTransport

extension CastConnection {
    /// Reads until the transport ends, then ends the connection if it was still running.
    func runReadLoop() async {
        do {
            for try await message in transport.inbound {
                await handle(message)
            }
            connectionEnded(cause: transport.closeReason ?? CastTransportError(code: .peerClosed, message: "The device closed the connection"))
        } catch {
            connectionEnded(cause: error)
        }
    }

    func connectionEnded(cause: any Error) {
        let transportError = cause as? CastTransportError
        let error = CastChannelError(
            code: .connectionLost, message: "Connection to \(transport.peerDescription) lost: \(cause)", transportError: transportError)
        performNow(machine { $0.transportEnded(error) })
    }

    /// Handles one inbound message, in arrival order.
    func handle(_ message: CastMessage) async {
        let now = timer.elapsed()
        await perform(machine { $0.received(message, now: now) })
    }

    /// Completes the request a reply answers as soon as the transport has decoded it, on its I/O
    /// thread, instead of after the read-loop task has been scheduled: one thread hand-off less for
    /// every command's reply. The message still reaches plugins and listeners through the read loop,
    /// in order (its JSON is parsed only if someone asks, so nothing is parsed twice).
    func receivedEarly(_ message: CastMessage) {
        performNow(machine { $0.receivedEarly(message) })
    }

    // MARK: - Heartbeat

    /// PINGs on schedule and ends the connection when the receiver falls silent.
    func runHeartbeat() async {
        let peer = transport.peerDescription
        while !Task.isCancelled {
            let now = timer.elapsed()
            let delay = state.withLock { $0.machine.heartbeatDelay(now: now) }
            do { try await timer.sleepUntil(now + delay) } catch { return }
            let tick = timer.elapsed()
            await perform(machine { $0.heartbeatTick(now: tick, peer: peer) })
        }
    }
}
