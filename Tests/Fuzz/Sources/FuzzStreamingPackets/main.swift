import CastStreaming

/// Arbitrary datagrams through the Cast Streaming parsers and a stream receiver: RTP and compound RTCP
/// read and written back, and every datagram fed to a receiver with time advancing, so frame assembly,
/// feedback and skipping see hostile input. Bounded state, never a crash.
nonisolated(unsafe) var receiver = StreamReceiver(configuration: .init(
    senderSSRC: 0x0102_0304, receiverSSRC: 0x0102_0305, timeBase: 90_000, targetDelay: .milliseconds(100),
    crypto: try! FrameCrypto(key: Array(repeating: 7, count: 16), ivMask: Array(repeating: 9, count: 16)),
    sendsPictureLoss: true, maximumFrameBytes: 1 << 20, maximumBufferedBytes: 4 << 20))
nonisolated(unsafe) var now = Duration.zero

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreamingPacketsEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    now += .milliseconds(Int64(count % 50))
    if let packet = try? RTPPacket(parsing: bytes) {
        precondition((try? RTPPacket(parsing: packet.serialized())) == packet, "an RTP packet does not read back as itself")
        var forStream = packet
        forStream.ssrc = 0x0102_0304
        _ = receiver.receive(forStream, at: now)
    }
    if let packets = try? RTCPPacket.parseCompound(bytes) {
        let written = RTCPPacket.serializeCompound(packets)
        if !written.isEmpty { _ = try? RTCPPacket.parseCompound(written) }
        _ = receiver.receive(packets, at: now)
    }
    if let deadline = receiver.nextDeadline { precondition(deadline > now - .seconds(3600)) }
    _ = receiver.tick(now: now)
    return 0
}
