import NIOCore
import Synchronization

/// Writes frames to a channel in the order they were sent, whichever threads send them.
///
/// `Channel.writeAndFlush` called off the channel's event loop schedules the write, but called on
/// the loop it writes at once: a frame sent by the loop (a PONG, a CLOSE) could overtake a frame
/// another thread had sent, and returned from, a moment before. Here every send takes its place
/// under one lock; only the event loop writes, and it writes the frames in that order.
final class OrderedFrameWriter: Sendable {
    private struct State {
        var frames: [ByteBuffer] = []
        /// The loop is writing, or a drain is scheduled on it: new frames queue behind.
        var busy = false
    }

    private enum Turn { case queued, schedule, writeNow }

    private let channel: any Channel
    private let state = Mutex(State())

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Writes `frame` now when called on the event loop with nothing queued; otherwise queues it
    /// behind the frames sent before it.
    func write(_ frame: ByteBuffer) {
        let loop = channel.eventLoop
        let turn = state.withLock { state -> Turn in
            if state.busy {
                state.frames.append(frame)
                return .queued
            }
            state.busy = true
            if loop.inEventLoop { return .writeNow }
            state.frames.append(frame)
            return .schedule
        }
        switch turn {
        case .queued:
            return
        case .schedule:
            loop.execute { self.drain() }
        case .writeNow:
            channel.writeAndFlush(frame, promise: nil)
            drain()
        }
    }

    /// On the loop: writes what queued up, until nothing is left, then lets the next send write at once.
    private func drain() {
        while true {
            var frames: [ByteBuffer] = []
            state.withLock { state in
                swap(&frames, &state.frames)
                if frames.isEmpty { state.busy = false }
            }
            if frames.isEmpty { return }
            for frame in frames { channel.write(frame, promise: nil) }
            channel.flush()
        }
    }
}
