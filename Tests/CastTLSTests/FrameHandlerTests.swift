import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import CastTLS

/// `CastFrameHandler`, the socket pipeline's last handler, in an embedded channel: what the transport's
/// core is handed, in what order, and how an error ends it.
@Suite("CastFrameHandler")
struct FrameHandlerTests {
    /// A channel whose frame handler hands messages to a core, and what the core's taker saw. Everything
    /// runs on the test's thread: an embedded channel's loop is the caller.
    final class Harness: @unchecked Sendable {
        let core = ChannelTransportCore()
        let channel: EmbeddedChannel
        let events = Mutex<[CastInboundEvent]>([])
        /// Runs on each message the taker is handed, before it returns (to re-enter the pipeline).
        var onMessage: (Int) -> Void = { _ in }
        /// How many hand-overs are running now, and the most there ever were at once.
        var depth = 0
        var maximumDepth = 0

        init() throws {
            channel = EmbeddedChannel(handler: CastFrameHandler(core: core))
            // Active, as a connected socket is: closing is then visible.
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8009)).wait()
            core.deliver { event in
                let count = self.events.withLock { events in
                    events.append(event)
                    return events.count
                }
                guard case .message = event else { return }
                self.depth += 1
                self.maximumDepth = max(self.maximumDepth, self.depth)
                self.onMessage(count)
                self.depth -= 1
            }
        }

        var messages: [CastMessage] {
            events.withLock { $0.compactMap { if case .message(let message) = $0 { message } else { nil } } }
        }

        var end: CastTransportError?? {
            events.withLock { events in
                guard case .ended(let reason) = events.last else { return nil }
                return .some(reason)
            }
        }
    }

    static func chunks(of buffer: ByteBuffer, splitAt cuts: [Int]) -> [ByteBuffer] {
        var pieces: [ByteBuffer] = []
        var start = 0
        for cut in cuts + [buffer.readableBytes] where cut > start {
            pieces.append(buffer.getSlice(at: buffer.readerIndex + start, length: cut - start)!)
            start = cut
        }
        return pieces
    }

    @Test func everyMessageArrivesInOrderWhateverTheSplit() throws {
        let frames = try FramingTests.frames(FramingTests.messages)
        // Every single cut, and every pair of cuts a prime stride apart, plus one byte at a time.
        var splits: [[Int]] = (1..<frames.readableBytes).map { [$0] }
        splits += stride(from: 1, to: frames.readableBytes, by: 7).map { [$0, min(frames.readableBytes - 1, $0 + 13)] }
        splits.append(Array(1..<frames.readableBytes))
        for cuts in splits {
            let harness = try Harness()
            for chunk in Self.chunks(of: frames, splitAt: cuts) { try harness.channel.writeInbound(chunk) }
            #expect(harness.messages == FramingTests.messages, "cut at \(cuts.prefix(4))")
            #expect(harness.channel.isActive)
        }
    }

    @Test func aReadDuringAHandOverIsDecodedAfterTheFramesBeforeIt() throws {
        // Two frames in one read; while the first is handed over, the taker makes the pipeline read a
        // third. The second, already read, must still come before it.
        let harness = try Harness()
        let first = try FramingTests.frames(Array(FramingTests.messages[0...1]))
        let third = try FramingTests.frames([FramingTests.messages[2]])
        harness.onMessage = { count in
            if count == 1 { harness.channel.pipeline.fireChannelRead(third) }
        }
        try harness.channel.writeInbound(first)
        #expect(harness.messages == Array(FramingTests.messages[0...2]))
        // The taker is never called from inside itself: the nested read only appended.
        #expect(harness.maximumDepth == 1)
    }

    @Test func aReEntrantReadCompletesAFrameThatWasWaiting() throws {
        // The first read holds one whole frame and half of the next; the other half arrives re-entrantly.
        let harness = try Harness()
        let frames = try FramingTests.frames(Array(FramingTests.messages[0...1]))
        let firstLength = try FramingTests.frames([FramingTests.messages[0]]).readableBytes
        let pieces = Self.chunks(of: frames, splitAt: [firstLength + 5])
        harness.onMessage = { count in
            if count == 1 { harness.channel.pipeline.fireChannelRead(pieces[1]) }
        }
        try harness.channel.writeInbound(pieces[0])
        #expect(harness.messages == Array(FramingTests.messages[0...1]))
        #expect(harness.maximumDepth == 1)
    }

    @Test func framesReadBeforeTheChannelWentInactiveDuringAHandOverStillArriveBeforeTheEnd() throws {
        // Three frames and half of a fourth in one read; handed the first, the taker closes the channel (as a
        // write that fails does). The two whole frames already read still come, then the end; the half is dropped.
        let harness = try Harness()
        var bytes = try FramingTests.frames(Array(FramingTests.messages[0...2]))
        let fourth = try FramingTests.frames([FramingTests.messages[3]])
        var half = Self.chunks(of: fourth, splitAt: [fourth.readableBytes / 2])[0]
        bytes.writeBuffer(&half)
        harness.onMessage = { count in
            if count == 1 { harness.channel.pipeline.fireChannelInactive() }
        }
        try harness.channel.writeInbound(bytes)
        #expect(harness.messages == Array(FramingTests.messages[0...2]))
        #expect(harness.end == nil)  // the end comes in a later loop turn, after what was handed over
        harness.channel.embeddedEventLoop.run()
        #expect(harness.end == .some(nil))
        #expect(harness.messages == Array(FramingTests.messages[0...2]))
    }

    @Test func aFrameOverTheLimitEndsTheConnectionAndNothingAfterItIsDecoded() throws {
        let harness = try Harness()
        var bytes = try FramingTests.frames([FramingTests.messages[0]])
        bytes.writeInteger(UInt32(CastFrame.maxBodySize + 1))
        var later = try FramingTests.frames([FramingTests.messages[1]])
        bytes.writeBuffer(&later)
        try harness.channel.writeInbound(bytes)
        try harness.channel.writeInbound(FramingTests.frames([FramingTests.messages[2]]))
        #expect(harness.messages == [FramingTests.messages[0]])
        #expect(!harness.channel.isActive)
        #expect(harness.core.closeReason?.code == .frameTooLarge)
        harness.channel.embeddedEventLoop.run()
        #expect(harness.end == .some(harness.core.closeReason))
        #expect(harness.end??.code == .frameTooLarge)
    }

    @Test func anUndecodableBodyEndsTheConnectionWithMalformedMessage() throws {
        let harness = try Harness()
        var bytes = ByteBuffer()
        bytes.writeInteger(UInt32(3))
        bytes.writeBytes([0xFF, 0xFF, 0xFF])
        try harness.channel.writeInbound(bytes)
        #expect(harness.messages.isEmpty)
        #expect(!harness.channel.isActive)
        #expect(harness.core.closeReason?.code == .malformedMessage)
    }

    @Test func aPartialFrameAtTheEndIsDroppedAndTheStreamEnds() throws {
        let harness = try Harness()
        let frames = try FramingTests.frames(Array(FramingTests.messages[0...1]))
        try harness.channel.writeInbound(Self.chunks(of: frames, splitAt: [frames.readableBytes - 3])[0])
        #expect(harness.messages == [FramingTests.messages[0]])
        harness.channel.pipeline.fireChannelInactive()
        #expect(harness.end == nil)  // the end comes in a later loop turn
        harness.channel.embeddedEventLoop.run()
        #expect(harness.messages == [FramingTests.messages[0]])
        // The end of a stream the peer closed is clean; the core says who closed it.
        #expect(harness.end == .some(nil))
        #expect(harness.core.closeReason?.code == .peerClosed)
    }

    @Test func anErrorFromEarlierInThePipelineIsTheCloseReason() throws {
        let harness = try Harness()
        harness.channel.pipeline.fireErrorCaught(TLSError(code: .handshakeFailed, message: "test"))
        #expect(!harness.channel.isActive)
        #expect(harness.core.closeReason?.code == .tls)
    }
}
