@_spi(Fuzzing) import CastTLS
import NIOCore

/// Feeds arbitrary bytes to the frame decoder (and so to the CastMessage parser), split at a
/// position taken from the input, and checks the invariants of whatever decodes; the input is also
/// decoded as a frame body by the hand-written codec and by SwiftProtobuf, which must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCastFrame(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    // The body parser against SwiftProtobuf's, on the raw input.
    fuzzCastMessageBody(Array(bytes))
    let split = count > 0 ? Int(bytes[0]) % (count + 1) : 0
    var decoder = CastFrameDecoder()
    var buffer = ByteBuffer()
    for chunk in [bytes[..<split], bytes[split...]] {
        buffer.writeBytes(chunk)
        do {
            while let message = try decoder.decodeFrame(from: &buffer) {
                // Whatever decodes must re-encode within the frame limit and decode to itself.
                var again = ByteBuffer()
                try CastFrameEncoder().encodeFrame(message, into: &again)
                var checker = CastFrameDecoder()
                guard try checker.decodeFrame(from: &again) == message else { fatalError("round trip changed \(message)") }
                _ = message.json
            }
        } catch {
            return 0  // a typed rejection is the expected outcome for garbage
        }
    }
    return 0
}
