/// A bidirectional stream of `CastMessage`s with one device (or, on a receiver, one sender).
///
/// Castor's channel layer sees only this protocol, so it runs the same over TLS sockets
/// (CastTLS's `TLSCastTransport`, the server side of its `CastTransportServer`) and in memory
/// (``InMemoryCastTransport``) for tests, or over a transport of your own.
///
/// Inbound messages reach one consumer, in one of two ways:
/// - pulled from ``inbound`` by one task (tools, tests), or
/// - pushed, by ``deliverInbound(to:)``, to a handler the transport calls where it decodes them
///   (a `CastConnection` completes a request on the I/O thread the moment its reply arrives; the
///   emulated receiver handles a request on its event loop).
///
/// Implementation requirements:
/// - ``inbound`` finishes without error when the transport is closed by this side or cleanly by
///   the peer, and throws a ``CastTransportError`` otherwise.
/// - ``send(_:)`` may be called from any thread; it queues the message and returns without waiting
///   for the write. Messages are written in call order. It throws ``CastTransportError`` `.closed`
///   or `.messageTooLarge` without queueing anything.
/// - ``close()`` is idempotent and finishes ``inbound``.
public protocol CastTransport: AnyObject, Sendable {
    /// Messages from the peer, in order, for a consumer that pulls them.
    var inbound: AsyncThrowingStream<CastMessage, any Error> { get }
    /// Hands every message from the peer, then the end, to `handler`, in order and one at a time,
    /// instead of queueing them on ``inbound`` (which afterwards yields nothing and does not finish).
    ///
    /// Call it at most once, before consuming ``inbound``. Messages already queued are handed over
    /// first. The handler runs on the transport's I/O thread, never inside itself (what its own sends
    /// cause waits until it returns): it must be quick and must not block or wait for another message.
    /// Nothing is read while it runs, but a consumer that queues what it is handed (as `CastConnection`
    /// does for its plugins) must bound that queue itself. The transport holds the handler until it
    /// has delivered ``CastInboundEvent/ended(_:)``.
    ///
    /// The default implementation reads ``inbound`` in a task; `TLSCastTransport` and
    /// ``InMemoryCastTransport`` call the handler where they decode or deliver a message.
    func deliverInbound(to handler: @escaping @Sendable (CastInboundEvent) -> Void)
    /// Queues one message for writing.
    /// - Throws: ``CastTransportError`` `.messageTooLarge` (nothing queued) or `.closed`.
    func send(_ message: CastMessage) throws(CastTransportError)
    /// Closes the transport. Queued writes are flushed when the connection still allows; ``inbound`` finishes.
    func close() async
    /// Why the transport closed, once it has; `nil` while open or after a clean close by this side.
    var closeReason: CastTransportError? { get }
    /// A short description of the peer (`host:port`), for logs.
    var peerDescription: String { get }
    /// The peer's TLS certificate (DER), which device authentication binds to; `nil` (the
    /// default) for transports without TLS.
    var peerCertificateDER: [UInt8]? { get }
    /// The device-authentication check for the peer of this transport (it needs ``peerCertificateDER``);
    /// `nil` (the default) for transports that cannot check one. CastTLS's `TLSCastTransport`
    /// offers Google's checks.
    var deviceVerifier: (any CastDeviceVerifier)? { get }
    /// An executor on the thread that delivers inbound messages, for work that should follow a
    /// message without a thread hand-off (a `CastConnection` runs the callbacks of plugins that ask
    /// for it there, and hands them messages at once when none of their callbacks is pending);
    /// `nil` (the default) when the transport has none. When a transport has one, it must be
    /// serial (one job at a time, as an event loop is), its `enqueue` must never run a job before
    /// returning, and ``deliverInbound(to:)`` must call its handler there (the default
    /// implementation does).
    var taskExecutor: (any TaskExecutor)? { get }
}

/// What a transport hands to the handler given to ``CastTransport/deliverInbound(to:)``.
public enum CastInboundEvent: Sendable {
    /// A message from the peer.
    case message(CastMessage)
    /// The transport ended: `nil` when it ended cleanly (closed by this side, or by the peer with a
    /// clean shutdown such as TLS close_notify: then ``CastTransport/closeReason`` says which), or
    /// the reason it ended (an error, or, on ``InMemoryCastTransport``, `.peerClosed` when the other
    /// end closed). Nothing follows it.
    case ended(CastTransportError?)
}

extension CastTransport {
    /// `nil`: the transport has no TLS certificate.
    public var peerCertificateDER: [UInt8]? { nil }

    /// `nil`: the transport offers no device-authentication check.
    public var deviceVerifier: (any CastDeviceVerifier)? { nil }

    /// `nil`: the transport has no I/O thread of its own.
    public var taskExecutor: (any TaskExecutor)? { nil }

    /// Reads ``inbound`` in a task and hands each message, then the end, to `handler`; the task
    /// runs on ``taskExecutor`` when the transport has one.
    public func deliverInbound(to handler: @escaping @Sendable (CastInboundEvent) -> Void) {
        let inbound = self.inbound
        Task(executorPreference: taskExecutor) {
            do {
                for try await message in inbound { handler(.message(message)) }
                handler(.ended(nil))
            } catch let error as CastTransportError {
                handler(.ended(error))
            } catch {
                handler(.ended(CastTransportError(code: .io, message: "\(error)")))
            }
        }
    }
}
