@_spi(Fuzzing) import CastXML
import Foundation

/// Entry points for libFuzzer harnesses (`make fuzz` wires them into `LLVMFuzzerTestOneInput`).
///
/// Each function must never crash, hang or allocate without bound for any input. Public only as
/// SPI, for the separate fuzz package: `@_spi(Fuzzing) import CastDIAL`.
@_spi(Fuzzing) public enum CastDIALFuzzing {
    /// Feeds bytes to the SSDP response parser and the DIAL device-description parser; the XML reading is
    /// compared with libxml2's own (`CastXMLFuzzing.compareWithLibXML2(_:)`).
    public static func fuzzDeviceDescription(_ data: UnsafeRawBufferPointer) {
        let bytes = Array(data.bindMemory(to: UInt8.self))
        CastXMLFuzzing.compareWithLibXML2(Data(bytes))
        _ = try? SSDPResponse(parsing: bytes)
        _ = try? DIALDeviceDescription(parsing: bytes)
    }
}
