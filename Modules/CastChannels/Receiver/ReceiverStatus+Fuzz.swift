import CastJSON

/// Entry points for libFuzzer harnesses (`Tests/Fuzz`). Public only as SPI, for the separate fuzz
/// package: `@_spi(Fuzzing) import CastChannels`.
@_spi(Fuzzing) public enum CastChannelsFuzzing {
    /// Reads `bytes` as a RECEIVER_STATUS message twice — from the bytes with the pull reader (the
    /// connection's path) and through a ``JSONValue`` tree with ``ReceiverStatus/init(message:)`` (the
    /// reference) — and traps unless both accept it with the same status (`raw` included) or both
    /// refuse it. Bytes that are not UTF-8 are not a Cast text payload and are skipped.
    public static func compareReceiverStatusDecoders(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        let outcomes = receiverStatusDecoderOutcomes(text)
        switch (outcomes.bytes, outcomes.tree) {
        case (let fast?, .success(let reference)):
            precondition(fast == reference && fast.raw == reference.raw, "the byte reader and the tree disagree:\n\(fast)\n\(reference)")
        case (nil, .failure):
            break
        case (let fast?, .failure(let reference)):
            preconditionFailure("the byte reader accepted what the tree refuses (\(reference)): \(fast)")
        case (nil, .success(let reference)):
            preconditionFailure("the byte reader refused what the tree accepts: \(reference)")
        }
    }

    /// Both decoders' outcomes for `text`: the byte reader's (`nil` when it refuses), then the tree's.
    public static func receiverStatusDecoderOutcomes(
        _ text: String
    ) -> (bytes: ReceiverStatus?, tree: Result<ReceiverStatus, CastChannelError>) {
        let fast = ReceiverStatus(messageText: text)
        let reference = Result { () throws(CastChannelError) -> ReceiverStatus in
            guard let json = try? JSONValue(parsing: text) else {
                throw CastChannelError(code: .malformedReply, message: "not JSON")
            }
            return try ReceiverStatus(message: json)
        }
        return (fast, reference)
    }
}
