import CastCore

/// The emulated receiver's protocol logic alone, without sockets, tasks or clocks: for the benchmark
/// that counts the instructions a request costs the receiver (`castor-bench seek-work` under
/// callgrind, which cannot run the threaded network commands). Public only as SPI:
/// `@_spi(Benchmarking) import CastEmulator`.
@_spi(Benchmarking) public struct EmulatedReceiverEngineDriver: Sendable {
    private var engine: ReceiverEngine

    /// A receiver engine configured like ``EmulatedReceiver`` with `configuration`.
    public init(configuration: EmulatedReceiverConfiguration = EmulatedReceiverConfiguration()) {
        engine = ReceiverEngine(settings: ReceiverEngine.Settings(configuration))
    }

    /// A sender socket opened at `now`.
    public mutating func open(socket: Int, now: Duration) {
        engine.open(socket: socket, now: now)
    }

    /// Hands the engine one message from `socket` at `now`, as the receiver does, and returns the
    /// messages it writes (to any socket).
    public mutating func receive(_ message: CastMessage, from socket: Int, now: Duration) -> [CastMessage] {
        engine.receive(message, from: socket, now: now).compactMap { action in
            if case .send(_, let reply) = action { reply } else { nil }
        }
    }
}
