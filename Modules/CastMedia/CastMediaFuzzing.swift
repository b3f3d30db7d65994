public import CastJSON
import Foundation

/// Entry points for libFuzzer harnesses (`Tests/Fuzz`). Public only as SPI, for the separate fuzz
/// package: `@_spi(Fuzzing) import CastMedia`.
@_spi(Fuzzing) public enum CastMediaFuzzing {
    /// Decodes `bytes` as a MEDIA_STATUS message twice — from the bytes with the pull reader (the sender's
    /// path) and through a ``JSONValue`` tree with `init(json:)` (the reference) — and traps unless both
    /// give the same message or both fail with the same error code.
    public static func compareStatusDecoders(_ bytes: UnsafeRawBufferPointer) {
        let input = bytes.bindMemory(to: UInt8.self)
        let outcomes = statusDecoderOutcomes(input)
        switch outcomes {
        case (.success(let fast), .success(let reference)):
            precondition(fast == reference, "the byte reader and the tree disagree:\n\(fast)\n\(reference)")
            // The routing type read in the same pass is the envelope's.
            let routed = try? MediaStatusMessage.routed(utf8: input)
            let type = JSONEnvelope.type(in: input)
            precondition(routed?.message == fast && routed?.type == type,
                         "the one-pass read gives type \(String(describing: routed?.type)), the envelope \(String(describing: type))")
            // As a media channel reads a stream: the same message again, each of its media now remembered.
            var memory = MediaStatusMemory()
            let first = try? MediaStatusMessage.routed(utf8: input, remembering: &memory)
            let again = try? MediaStatusMessage.routed(utf8: input, remembering: &memory)
            precondition(first?.message == fast && again?.message == fast,
                         "read with remembered media, the message differs:\n\(String(describing: again?.message))\n\(fast)")
        case (.failure(let fast), .failure(let reference)):
            precondition(fast.code == reference.code, "the byte reader failed with \(fast), the tree with \(reference)")
            var memory = MediaStatusMemory()
            precondition((try? MediaStatusMessage.routed(utf8: input, remembering: &memory)) == nil && memory.count == 0,
                         "read with a memory, a message the tree rejects was accepted or remembered")
        case (.success(let fast), .failure(let reference)):
            preconditionFailure("the byte reader accepted what the tree rejects (\(reference)): \(fast)")
        case (.failure(let fast), .success(let reference)):
            preconditionFailure("the byte reader rejected (\(fast)) what the tree accepts: \(reference)")
        }
    }

    /// Reads `bytes` as a QUEUE_ITEMS message's `items` twice — from the bytes with the pull reader and
    /// through a ``JSONValue`` tree with `QueueItem(json:)` per element (the reference) — and traps unless
    /// both give the same items (or none), or both find the bytes malformed.
    public static func compareQueueItemsDecoders(_ bytes: UnsafeRawBufferPointer) {
        let input = bytes.bindMemory(to: UInt8.self)
        let fast = Result { () throws(JSONError) -> [QueueItem]? in try QueueItem.queueItems(utf8: input) }
        let reference = Result { () throws(JSONError) -> [QueueItem]? in
            try JSONValue(parsing: Data(input))["items"]?.arrayValue?.compactMap { try? QueueItem(json: $0) }
        }
        switch (fast, reference) {
        case (.success(let fast), .success(let reference)):
            precondition(fast == reference, "the byte reader and the tree disagree:\n\(String(describing: fast))\n\(String(describing: reference))")
        case (.failure(let fast), .failure(let reference)):
            precondition(fast.code == reference.code, "the byte reader failed with \(fast), the tree with \(reference)")
        case (.success(let fast), .failure(let reference)):
            preconditionFailure("the byte reader accepted what the tree rejects (\(reference)): \(String(describing: fast))")
        case (.failure(let fast), .success(let reference)):
            preconditionFailure("the byte reader rejected (\(fast)) what the tree accepts: \(String(describing: reference))")
        }
    }

    /// Both decoders' outcomes for `bytes`: the byte reader's, then the tree's.
    public static func statusDecoderOutcomes(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> (bytes: Result<MediaStatusMessage, JSONError>, tree: Result<MediaStatusMessage, JSONError>) {
        let fast = Result { () throws(JSONError) -> MediaStatusMessage in try MediaStatusMessage(utf8: bytes) }
        let reference = Result { () throws(JSONError) -> MediaStatusMessage in
            try MediaStatusMessage(json: JSONValue(parsing: Data(bytes)))
        }
        return (fast, reference)
    }
}
