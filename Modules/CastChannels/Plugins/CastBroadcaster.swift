import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers: the event fan-out of a channel plugin
/// (first-party plugins use it for their status and message streams; yours can too).
///
/// Each subscriber gets every value yielded after it subscribed, in order. Every subscriber's buffer
/// is bounded by ``bufferLimit``: a subscriber that stops reading keeps only the newest values and
/// loses the oldest (for status streams the newest status is the one that matters), so a reader that
/// went away never makes memory grow. A stream whose reader stopped (its task ended or it was
/// cancelled) is removed at once. ``finish()`` ends every stream, and later subscribers get a
/// finished stream.
///
/// ```swift
/// final class ScoreChannel: CastChannelPlugin {
///     let namespace = try! CastNamespace("urn:x-cast:com.example.score")
///     private let scores = CastBroadcaster<Int>()
///     var updates: AsyncStream<Int> { scores.subscribe() }
///     func channel(_ context: CastChannelContext, didReceive message: CastChannelMessage) async {
///         if let score = message.json?["score"]?.intValue { scores.yield(score) }
///     }
/// }
/// ```
public final class CastBroadcaster<Element: Sendable>: Sendable {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }
    private let state = Mutex(State())
    /// How many streams are open, kept beside `state` so that a yield with none takes no lock.
    private let openStreams = Atomic<Int>(0)

    /// The most values one subscriber holds unread; beyond it the oldest are dropped.
    public let bufferLimit: Int

    /// The default ``bufferLimit``: 1024 values per subscriber.
    public static var defaultBufferLimit: Int { 1024 }

    /// Creates a broadcaster whose subscribers each hold at most `bufferLimit` unread values (at least 1).
    public init(bufferLimit: Int = CastBroadcaster.defaultBufferLimit) {
        self.bufferLimit = max(1, bufferLimit)
    }

    /// A new stream of the values yielded from now on.
    public func subscribe() -> AsyncStream<Element> {
        subscribe(startingWith: nil)
    }

    /// A new stream that starts with `current` (when not `nil`) and then gets the values yielded from
    /// now on: what a status stream's observer expects. `current` is delivered before any value
    /// yielded after this call.
    public func subscribe(startingWith current: Element?) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            if let current { continuation.yield(current) }
            state.next += 1
            state.continuations[state.next] = continuation
            openStreams.store(state.continuations.count, ordering: .releasing)
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.continuations.removeValue(forKey: id)
                self?.openStreams.store(state.continuations.count, ordering: .releasing)
            }
        }
        return stream
    }

    /// Sends `value` to every subscriber.
    public func yield(_ value: Element) {
        // Most streams have no reader most of the time (a channel's message stream): no lock is taken
        // and nothing is copied then.
        guard openStreams.load(ordering: .acquiring) > 0 else { return }
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(value) }
    }

    /// Ends every stream; later subscribers get a finished stream.
    public func finish() {
        let continuations = state.withLock { state in
            state.finished = true
            defer {
                state.continuations.removeAll()
                openStreams.store(0, ordering: .releasing)
            }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }

    /// How many subscribers are listening (streams whose reader stopped are not counted).
    public var subscriberCount: Int { state.withLock { $0.continuations.count } }
}
