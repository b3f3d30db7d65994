internal import CNettle

/// AES-128 in counter mode per frame, as Cast Streaming encrypts every frame's payload.
///
/// The counter block starts as the session's `aesIvMask` XOR the frame id's low 32 bits written
/// big-endian at bytes 8…11; each 16-byte block of the frame advances it by one. Encryption and
/// decryption are the same operation.
public struct FrameCrypto: Sendable {
    private let context: Context
    /// The `aesIvMask` of the stream.
    public let ivMask: [UInt8]

    /// The AES context: a plain C struct of round keys, set once and only read afterwards.
    private struct Context: @unchecked Sendable {
        var value = aes128_ctx()
    }

    /// A crypto for a stream's `aesKey` and `aesIvMask` (16 bytes each).
    /// - Throws: ``StreamingError`` `.encryptionRequired` when either is not 16 bytes.
    public init(key: [UInt8], ivMask: [UInt8]) throws(StreamingError) {
        guard key.count == 16, ivMask.count == 16 else {
            throw StreamingError(code: .encryptionRequired, message: "AES key and IV mask must be 16 bytes each (got \(key.count) and \(ivMask.count))")
        }
        var context = Context()
        key.withUnsafeBufferPointer { castor_aes128_set_key(&context.value, $0.baseAddress) }
        self.context = context
        self.ivMask = ivMask
    }

    /// The first counter block for a frame.
    public func nonce(for frame: FrameID) -> [UInt8] {
        var nonce = ivMask
        let low = frame.low32
        nonce[8] ^= UInt8(truncatingIfNeeded: low >> 24)
        nonce[9] ^= UInt8(truncatingIfNeeded: low >> 16)
        nonce[10] ^= UInt8(truncatingIfNeeded: low >> 8)
        nonce[11] ^= UInt8(truncatingIfNeeded: low)
        return nonce
    }

    /// Encrypts (or decrypts) a frame's payload.
    public func crypt(_ data: some Collection<UInt8>, frame: FrameID) -> [UInt8] {
        let input = Array(data)
        guard !input.isEmpty else { return [] }
        var counter = nonce(for: frame)
        var output = [UInt8](repeating: 0, count: input.count)
        withUnsafePointer(to: context.value) { key in
            counter.withUnsafeMutableBufferPointer { counter in
                output.withUnsafeMutableBufferPointer { out in
                    input.withUnsafeBufferPointer { inp in
                        castor_aes128_ctr(key, counter.baseAddress, inp.count, out.baseAddress, inp.baseAddress)
                    }
                }
            }
        }
        return output
    }
}
