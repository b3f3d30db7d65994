import CastStreaming
import Dispatch
import Synchronization

/// Encodes a stream's input on a queue of its own (never the network's loop), one input at a time.
///
/// Video keeps at most one picture waiting: a picture that arrives while the encoder is busy replaces
/// the waiting one (which is counted as skipped), so a slow encoder drops frames instead of queueing
/// them. Audio keeps up to ``maximumQueuedChunks`` chunks and drops the oldest beyond that.
final class EncodingLane<Input: Sendable>: Sendable {
    /// Audio chunks kept waiting at most (half a second of 10 ms chunks).
    static var maximumQueuedChunks: Int { 50 }

    private struct State {
        var queued: [Input] = []
        var busy = false
        var skipped = 0
        var keyFrameRequested = false
        var bitRate: Int?
        var stopped = false
    }

    private let queue: DispatchQueue
    private let state = Mutex(State())
    private let keepsOnlyLatest: Bool
    private let encode: @Sendable (Input, _ keyFrame: Bool, _ bitRate: Int?) throws(StreamingError) -> [EncodedFrame]
    private let deliver: @Sendable ([EncodedFrame]) -> Void
    private let fail: @Sendable (StreamingError) -> Void

    init(
        label: String, keepsOnlyLatest: Bool,
        encode: @escaping @Sendable (Input, Bool, Int?) throws(StreamingError) -> [EncodedFrame],
        deliver: @escaping @Sendable ([EncodedFrame]) -> Void, fail: @escaping @Sendable (StreamingError) -> Void
    ) {
        queue = DispatchQueue(label: label)
        self.keepsOnlyLatest = keepsOnlyLatest
        self.encode = encode
        self.deliver = deliver
        self.fail = fail
    }

    /// Inputs dropped before the encoder took them.
    var skipped: Int { state.withLock { $0.skipped } }

    /// Asks for the next output to be a key frame.
    func requestKeyFrame() { state.withLock { $0.keyFrameRequested = true } }

    /// Sets the bit rate applied before the next input.
    func setBitRate(_ bitRate: Int) { state.withLock { $0.bitRate = bitRate } }

    /// Takes no more input; what is being encoded finishes.
    func close() { state.withLock { $0.stopped = true } }

    /// Hands an input over; the encoder takes it at once or after the one it is busy with.
    func submit(_ input: Input) {
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if keepsOnlyLatest {
                if !state.queued.isEmpty { state.skipped += state.queued.count }
                state.queued = [input]
            } else {
                state.queued.append(input)
                if state.queued.count > Self.maximumQueuedChunks {
                    state.queued.removeFirst()
                    state.skipped += 1
                }
            }
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    private func drain() {
        while true {
            let next = state.withLock { state -> (Input, Bool, Int?)? in
                guard !state.stopped, !state.queued.isEmpty else {
                    state.busy = false
                    return nil
                }
                let input = state.queued.removeFirst()
                defer {
                    state.keyFrameRequested = false
                    state.bitRate = nil
                }
                return (input, state.keyFrameRequested, state.bitRate)
            }
            guard let (input, keyFrame, bitRate) = next else { return }
            do {
                let frames = try encode(input, keyFrame, bitRate)
                if !frames.isEmpty { deliver(frames) }
            } catch {
                close()
                fail(error)
                return
            }
        }
    }
}
