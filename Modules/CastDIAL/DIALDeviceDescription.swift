import CastDiscoveryCore
import CastXML
import Foundation

/// A UPnP/DIAL device description (`root/device/{UDN, friendlyName, modelName, …}`), read from
/// the XML a DIAL device serves at its SSDP `LOCATION`.
///
/// Parsing goes through CastXML with tight bounds: at most ``maxSize`` bytes, nesting at
/// most 32 deep, no DTD, no entities, no network. A hostile document (external entity, entity
/// expansion, deep nesting, megabytes of data) is rejected with
/// `CastDiscoveryError.Code.invalidDescription`.
public struct DIALDeviceDescription: Sendable, Hashable {
    /// The largest description accepted (real ones are about 1 KB).
    public static let maxSize = 64 * 1024
    /// The nesting depth accepted.
    public static let maxDepth = 32

    /// The device UUID from `UDN` (`uuid:…`).
    public var id: CastDeviceID
    /// `friendlyName`, or Chrome's fallback "`model` [last 4 digits of the UDN]" when absent.
    public var friendlyName: String
    /// `modelName`.
    public var modelName: String?
    /// `manufacturer`.
    public var manufacturer: String?
    /// `deviceType`, e.g. `urn:dial-multiscreen-org:device:dial:1`.
    public var deviceType: String?

    /// Parses a description.
    ///
    /// - Throws: `CastDiscoveryError.Code.invalidDescription` (with the CastXML error as
    ///   cause) for malformed or hostile XML, a missing `device` or `UDN`, or an unusable UDN.
    public init(parsing bytes: [UInt8]) throws(CastDiscoveryError) {
        guard bytes.count <= Self.maxSize else {
            throw CastDiscoveryError(code: .invalidDescription,
                message: "device description of \(bytes.count) bytes exceeds \(Self.maxSize) bytes")
        }
        let document: CastXMLDocument
        do {
            document = try CastXMLDocument(parsing: Data(bytes), options: .init(maxInputSize: Self.maxSize, maxDepth: Self.maxDepth))
        } catch {
            throw CastDiscoveryError(code: .invalidDescription, message: "device description is not acceptable XML: \(error.message)",
                                     cause: error)
        }
        guard document.root.matches("root") else {
            throw CastDiscoveryError(code: .invalidDescription, message: "device description root is <\(document.root.name)>, not <root>")
        }
        guard let device = document.root.child("device") else {
            throw CastDiscoveryError(code: .invalidDescription, message: "device description has no <device>")
        }
        func field(_ name: String) -> String? {
            guard let text = device.child(name)?.trimmedText, !text.isEmpty else { return nil }
            return String(text.prefix(256))
        }
        guard let udn = field("UDN") else {
            throw CastDiscoveryError(code: .invalidDescription, message: "device description has no <UDN>")
        }
        do {
            id = try CastDeviceID(parsing: udn)
        } catch {
            throw CastDiscoveryError(code: .invalidDescription, message: "device description UDN is unusable: \(error.message)", cause: error)
        }
        modelName = field("modelName")
        manufacturer = field("manufacturer")
        deviceType = field("deviceType")
        friendlyName = field("friendlyName") ?? "\(modelName ?? "Cast device") [\(id.txtValue.suffix(4))]"
    }
}
