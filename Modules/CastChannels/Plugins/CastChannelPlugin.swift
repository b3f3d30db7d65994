/// A custom `urn:x-cast:` channel: the one protocol a channel plugin conforms to.
///
/// Add a plugin to a ``CastConnection`` at any time with ``CastConnection/add(_:)``. An
/// application-channel plugin connects when an app whose status lists its ``namespace`` is
/// running (Castor opens the virtual connection to the app's transport for it) and disconnects
/// when that app stops or closes the connection. A platform-channel plugin (``endpoint`` is
/// ``CastChannelEndpoint/platform``) talks to `receiver-0` and connects as soon as it is added.
///
/// Implementation requirements:
/// - Calls for one plugin are delivered one at a time, in the order the messages arrived:
///   ``channelDidConnect(_:)``, then any number of messages (each to ``channel(_:didReceive:)``, or
///   to ``CastConnectionThreadPlugin/channel(_:didReceiveNow:)`` for a plugin that takes them at once), then
///   ``channelDidDisconnect(_:reason:)``; the cycle can repeat when the app runs again.
/// - Messages are delivered even when they also answered a ``CastChannelContext/request(_:timeout:)``,
///   so a plugin that mirrors state sees every status.
/// - Don't block: a plugin that awaits a long operation in a callback delays its own later
///   messages (but no other channel's).
///
/// ```swift
/// final class ChatChannel: CastChannelPlugin {
///     let namespace = try! CastNamespace("urn:x-cast:com.example.chat")
///     func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
///         print("receiver says", message.json?["text"]?.stringValue ?? "")
///     }
/// }
/// ```
public protocol CastChannelPlugin: AnyObject, Sendable {
    /// The namespace this channel speaks.
    var namespace: CastNamespace { get }
    /// Whom the channel talks to; defaults to ``CastChannelEndpoint/application``.
    var endpoint: CastChannelEndpoint { get }
    /// The channel's virtual connection is open; `context` sends on it. Defaults to nothing.
    func channelDidConnect(_ context: CastChannelContext) async
    /// The channel's virtual connection is gone; `context` can no longer send. Defaults to nothing.
    func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async
    /// A message arrived on the channel from its peer (unicast to this sender or broadcast).
    func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async
}

extension CastChannelPlugin {
    /// Application channels by default.
    public var endpoint: CastChannelEndpoint { .application }
    /// Does nothing.
    public func channelDidConnect(_ context: CastChannelContext) async {}
    /// Does nothing.
    public func channelDidDisconnect(_ context: CastChannelContext, reason: CastChannelDisconnectReason) async {}
}

/// A channel plugin whose callbacks run on the connection's I/O thread and can take messages where
/// they are decoded: the fast path of a plugin on a hot channel (Castor's media channel).
///
/// Most plugins need none of this and conform to ``CastChannelPlugin`` alone. Conform to this
/// protocol only for callbacks that are short and never block: every connection served by that
/// thread waits while one runs. The guarantees of ``CastChannelPlugin`` (one call at a time, in
/// arrival order, connect before messages) hold across both paths.
public protocol CastConnectionThreadPlugin: CastChannelPlugin {
    /// Whether the callbacks run on the connection's I/O thread (its transport's
    /// `taskExecutor`, when it has one) instead of the shared thread pool: each
    /// message then reaches the plugin without waking another thread. Awaiting is fine (the
    /// callback is suspended, not the thread). Tasks a callback starts with `Task {}` run on the
    /// pool; only structured child tasks (`async let`, task groups) keep the preference.
    /// Defaults to `true`; a plugin can decide per instance.
    var runsOnConnectionThread: Bool { get }
    /// A message for the channel was just decoded, and is about to be queued for
    /// ``CastChannelPlugin/channel(_:didReceive:)`` (not called for a message
    /// ``channel(_:didReceiveNow:)`` took). Called synchronously where the connection takes its inbound
    /// messages (a TLS connection's event loop; the sending side's thread for the in-memory pair),
    /// after any request the message answers was matched (it is no longer in flight) and before its
    /// requester is resumed: the place for work that the awaiting request and the callback will both
    /// want (decoding the payload into a cache), which the request then finds done. The time spent here
    /// delays that request. Keep it short, and never block or wait for a lock another task may hold
    /// long: every connection served by that thread waits meanwhile. Defaults to nothing.
    func channelWillReceive(_ message: CastChannelMessage)
    /// Takes a message at once, where the connection decodes it, instead of through
    /// ``CastChannelPlugin/channel(_:didReceive:)``: no task is scheduled and no thread is woken for it.
    ///
    /// Called only while ``runsOnConnectionThread`` is `true`, on a transport with a
    /// `taskExecutor` (a TLS connection's event loop: where its messages are delivered, and where the
    /// plugin's callbacks run), and only while none of the plugin's callbacks is queued or running
    /// and the plugin is still connected.
    /// So the calls still reach the plugin one at a time and in the order the messages arrived:
    /// ``CastChannelPlugin/channelDidConnect(_:)`` has returned before the first message taken here,
    /// and a message that arrives while an earlier callback is still running waits for it in the
    /// plugin's mailbox. Like ``channelWillReceive(_:)``, it runs after any request the message
    /// answers was matched and before its requester is resumed, so the time spent here delays that request.
    ///
    /// Return `true` when the message is handled: ``CastChannelPlugin/channel(_:didReceive:)`` is then
    /// not called for it. Return `false` to have it queued as usual (``channelWillReceive(_:)`` first).
    /// Keep it short, and never block or wait for a lock another task may hold long: every connection
    /// served by that thread waits meanwhile. Defaults to `false`.
    func channel(_ context: CastChannelContext, didReceiveNow message: CastChannelMessage) -> Bool
}

extension CastConnectionThreadPlugin {
    /// `true`: the reason to conform.
    public var runsOnConnectionThread: Bool { true }
    /// Does nothing.
    public func channelWillReceive(_ message: CastChannelMessage) {}
    /// `false`: every message goes to ``CastChannelPlugin/channel(_:didReceive:)``.
    public func channel(_ context: CastChannelContext, didReceiveNow message: CastChannelMessage) -> Bool { false }
}

/// Whom a channel talks to.
public enum CastChannelEndpoint: Sendable, Hashable {
    /// A running receiver application that lists the namespace (addressed by its transport id).
    case application
    /// The device platform, `receiver-0` (for example the multizone namespace).
    case platform
}

/// Why a channel disconnected.
public struct CastChannelDisconnectReason: Sendable, Hashable, CustomStringConvertible {
    private enum Base: String, Sendable, Hashable { case appStopped, closedByReceiver, removed, overloaded, connectionClosed, connectionLost }
    private let base: Base
    private init(_ base: Base) { self.base = base }

    /// The app no longer appears in the receiver status (stopped or replaced).
    public static let appStopped = Self(.appStopped)
    /// The receiver sent CLOSE from the app's transport.
    public static let closedByReceiver = Self(.closedByReceiver)
    /// The plugin was removed from the connection.
    public static let removed = Self(.removed)
    /// The plugin stopped taking its messages: it had
    /// ``CastConnectionConfiguration/pluginBacklogLimit`` received messages waiting, and was removed
    /// from the connection (add it again to resume).
    public static let overloaded = Self(.overloaded)
    /// This side closed the connection.
    public static let connectionClosed = Self(.connectionClosed)
    /// The connection to the device was lost.
    public static let connectionLost = Self(.connectionLost)

    /// The reason's name.
    public var description: String { base.rawValue }
}
