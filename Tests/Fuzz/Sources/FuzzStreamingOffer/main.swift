import CastStreaming

/// Arbitrary text as a message on the Cast Streaming namespace (an OFFER, an ANSWER, …): a typed error
/// or a message that writes back to one that reads the same; an OFFER's streams get receivers as a
/// device would build them. Never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreamingOfferEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    guard let message = try? StreamingMessage(parsing: text) else { return 0 }
    let again = try? StreamingMessage(parsing: message.text)
    precondition(again?.type == message.type, "a message does not read back as its own type")
    if case .offer(_, let offer) = message {
        precondition(offer.streams.count <= StreamingOffer.maximumStreams)
        for stream in offer.streams {
            guard let crypto = try? FrameCrypto(key: stream.aesKey, ivMask: stream.aesIvMask) else { continue }
            let receiver = StreamReceiver(configuration: .init(
                senderSSRC: stream.ssrc, receiverSSRC: stream.ssrc &+ 1, timeBase: stream.timeBase,
                targetDelay: .milliseconds(stream.targetDelay), crypto: crypto, sendsPictureLoss: stream.codec.isVideo))
            _ = receiver.nextDeadline
        }
    }
    return 0
}
