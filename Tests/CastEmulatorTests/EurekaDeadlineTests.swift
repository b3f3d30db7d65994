import NIOCore
import NIOEmbedded
import Testing

@testable import CastEmulator

/// The eureka_info server's whole-connection deadline, on NIO's embedded loop (its clock moves only
/// when the test moves it): a client that drips a byte every few seconds is never idle, and is
/// still closed when the deadline comes.
@Suite struct EurekaDeadlineTests {
    @Test func aDrippingClientIsClosedAtTheDeadline() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ConnectionDeadlineHandler(deadline: .seconds(20)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8008)).wait()
        for second in 1...19 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            #expect(channel.isActive, "open after \(second) s")
            try channel.writeInbound(channel.allocator.buffer(string: "G"))  // one byte a second: never idle
            _ = try channel.readInbound(as: ByteBuffer.self)
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "closed 20 s after it became active")
    }

    @Test func aConnectionClosedEarlierCancelsTheDeadline() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ConnectionDeadlineHandler(deadline: .seconds(20)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8008)).wait()
        try channel.close().wait()
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))  // nothing scheduled fires on a closed channel
        #expect(!channel.isActive)
    }
}
