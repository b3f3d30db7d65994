/// Entry points for libFuzzer harnesses (`make fuzz` wires them into `LLVMFuzzerTestOneInput`).
///
/// Each function must never crash, hang or allocate without bound for any input; rejection is
/// a thrown-and-caught typed error. Public only as SPI, for the separate fuzz package:
/// `@_spi(Fuzzing) import CastDiscovery`.
@_spi(Fuzzing) public enum CastDiscoveryFuzzing {
    /// Feeds bytes to the TXT wire-format parser and, when that succeeds, to the device reader;
    /// a parsed record must round-trip through ``CastTXTRecord/wireFormat``.
    public static func fuzzTXT(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data.bindMemory(to: UInt8.self))
        guard let record = try? CastTXTRecord(wireFormat: bytes) else { return }
        guard let again = try? CastTXTRecord(wireFormat: record.wireFormat), again == record else {
            fatalError("TXT record does not round-trip: \(record)")
        }
        if let device = try? CastDevice(txt: record) {
            _ = device.isGroup
            _ = try? device.advertisedTXTRecord()
        }
    }
}
