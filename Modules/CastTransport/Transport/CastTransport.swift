/// A bidirectional stream of `CastMessage`s with one device (or, on a receiver, one sender).
///
/// Castor's channel layer sees only this protocol, so it runs the same over TLS sockets
/// (``TLSCastTransport``, the server side of ``CastTransportServer``) and in memory
/// (``InMemoryCastTransport``) for tests.
///
/// Implementation requirements:
/// - ``inbound`` is consumed by one task; it finishes without error when the transport is closed
///   by this side or cleanly by the peer, and throws a ``CastTransportError`` otherwise.
/// - ``send(_:)`` may be called from any task; messages are written in call order, and it throws
///   ``CastTransportError`` `.closed` or `.messageTooLarge` without writing anything.
/// - ``close()`` is idempotent and finishes ``inbound``.
public protocol CastTransport: AnyObject, Sendable {
    /// Messages from the peer, in order.
    var inbound: AsyncThrowingStream<CastMessage, any Error> { get }
    /// Sends one message.
    func send(_ message: CastMessage) async throws
    /// Closes the transport. Pending sends fail; ``inbound`` finishes.
    func close() async
    /// Why the transport closed, once it has; `nil` while open or after a clean close by this side.
    var closeReason: CastTransportError? { get }
    /// A short description of the peer (`host:port`), for logs.
    var peerDescription: String { get }
    /// The peer's TLS certificate (DER), which device authentication binds to; `nil` (the
    /// default) for transports without TLS.
    var peerCertificateDER: [UInt8]? { get }
}

extension CastTransport {
    /// `nil`: the transport has no TLS certificate.
    public var peerCertificateDER: [UInt8]? { nil }
}

/// A transport that can queue a message for writing without suspending the caller.
///
/// ``TLSCastTransport`` queues frames on its event loop; an actor that produces replies (the
/// emulated receiver) can hand them over directly instead of through a writer task, saving a
/// thread hand-off per message. Messages queued this way and through ``CastTransport/send(_:)``
/// are written in call order.
public protocol CastQueueingTransport: CastTransport {
    /// Frames `message` and queues it for writing.
    /// - Throws: ``CastTransportError`` `.messageTooLarge` (nothing queued) or `.closed`.
    func enqueue(_ message: CastMessage) throws(CastTransportError)
}

/// A transport that can show each inbound message to an observer as soon as it is decoded, on the
/// I/O thread, before queueing it on ``CastTransport/inbound``.
///
/// A `CastConnection` uses this to complete a request the moment its reply arrives, without waiting
/// for its read-loop task to be scheduled; the message still goes through ``CastTransport/inbound``
/// afterwards, in order. The observer must be quick and must not block.
public protocol CastInboundObservingTransport: CastTransport {
    /// Installs the observer (replacing any earlier one).
    func observeInbound(_ observer: @escaping @Sendable (CastMessage) -> Void)
}
