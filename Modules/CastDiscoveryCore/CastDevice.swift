import Foundation
/// A Cast device (or an audio group) found on the network.
///
/// A device is identified by ``id`` — the UUID it advertises — and nothing else. The same device
/// seen over IPv4 and IPv6, on two interfaces, or by two discovery mechanisms is one
/// `CastDevice` with several ``endpoints``. When an audio group's elected leader changes, the
/// group keeps its id and only its endpoints change, so browsers report an `updated` event
/// rather than a removal and a new device.
public struct CastDevice: Sendable, Hashable, Identifiable, Codable, CustomStringConvertible {
    /// The device UUID (TXT `id`).
    public var id: CastDeviceID
    /// The user-visible name (TXT `fn`).
    public var friendlyName: String
    /// The model name (TXT `md`), e.g. `Chromecast`, `Google Home Mini`, `Google Cast Group`.
    public var model: String?
    /// What the device can do (TXT `ca`).
    public var capabilities: CastDeviceCapabilities
    /// Whether ``capabilities`` was advertised (`ca` present) rather than assumed.
    public var advertisesCapabilities: Bool
    /// The running application's status text (TXT `rs`), e.g. `YouTube`; `nil` when idle.
    public var receiverStatusText: String?
    /// The Cast protocol version (TXT `ve`).
    public var protocolVersion: Int?
    /// Whether the device invites senders to join a running app (TXT `st=1`).
    public var isBusy: Bool?
    /// The icon path on port 8008 (TXT `ic`).
    public var iconPath: String?
    /// The firmware build, when a source reported it (eureka_info `cast_build_revision`).
    public var buildRevision: String?
    /// The DNS-SD instance name (`Chromecast-99f3…`), when found over mDNS.
    public var serviceName: String?
    /// The DIAL `Application-URL`, when found over SSDP.
    public var applicationURL: String?
    /// The TXT record as advertised, when found over mDNS.
    public var txtRecord: [String: String]
    /// Every address, port and interface the device was seen at.
    public var endpoints: Set<CastDeviceEndpoint>
    /// The mechanisms that found it.
    public var sources: Set<DiscoverySource>
    /// App IDs whose DNS-SD subtype (`_<APPID>._sub._googlecast._tcp`) the device advertises,
    /// among those a browser was configured to look for.
    public var applicationIDs: Set<String> = []

    /// Creates a device.
    public init(
        id: CastDeviceID, friendlyName: String, model: String? = nil,
        capabilities: CastDeviceCapabilities = [], advertisesCapabilities: Bool = true,
        receiverStatusText: String? = nil, protocolVersion: Int? = nil, isBusy: Bool? = nil,
        iconPath: String? = nil, buildRevision: String? = nil, serviceName: String? = nil,
        applicationURL: String? = nil, txtRecord: [String: String] = [:],
        endpoints: Set<CastDeviceEndpoint> = [], sources: Set<DiscoverySource> = []
    ) {
        self.id = id
        self.friendlyName = friendlyName
        self.model = model
        self.capabilities = capabilities
        self.advertisesCapabilities = advertisesCapabilities
        self.receiverStatusText = receiverStatusText
        self.protocolVersion = protocolVersion
        self.isBusy = isBusy
        self.iconPath = iconPath
        self.buildRevision = buildRevision
        self.serviceName = serviceName
        self.applicationURL = applicationURL
        self.txtRecord = txtRecord
        self.endpoints = endpoints
        self.sources = sources
    }

    /// The port a Cast device (not a group) listens on.
    public static let devicePort = 8009

    /// Whether this is a multizone audio group rather than a physical device.
    ///
    /// Decided from the advertised capabilities (bit 5, ``CastDeviceCapabilities/multizoneGroup``)
    /// and the port, never from the name or model: a service with the group bit is a group; a
    /// service that does not advertise `ca` is a group when none of its endpoints uses port 8009
    /// (groups are hosted by their leader on another port, which is how pychromecast decides).
    public var isGroup: Bool {
        if capabilities.contains(.multizoneGroup) { return true }
        if advertisesCapabilities { return false }
        return !endpoints.isEmpty && endpoints.allSatisfy { $0.port != Self.devicePort }
    }

    /// The endpoint to connect to first: routable IPv4, then routable IPv6, then link-local.
    public var preferredEndpoint: CastDeviceEndpoint? {
        endpoints.min { ($0.preferenceRank, $0.address, $0.port, $0.interfaceIndex ?? 0)
            < ($1.preferenceRank, $1.address, $1.port, $1.interfaceIndex ?? 0) }
    }

    /// `"Living Room TV" (Chromecast, 99f3…) at 10.0.0.5:8009`.
    public var description: String {
        let where_ = endpoints.sorted { $0.description < $1.description }.map(\.description).joined(separator: ", ")
        return "\"\(friendlyName)\" (\(model ?? "unknown model"), \(id))" + (where_.isEmpty ? "" : " at \(where_)")
    }
}

extension CastDevice {
    /// Reads a device from a `_googlecast._tcp` TXT record.
    ///
    /// `id` and `fn` are required; `md`, `ca`, `ve`, `st`, `rs`, `ic` are read when present.
    ///
    /// - Throws: ``CastDiscoveryError`` — ``CastDiscoveryError/Code/missingKey`` (no `id` or `fn`),
    ///   ``CastDiscoveryError/Code/invalidDeviceID``, ``CastDiscoveryError/Code/invalidUTF8``
    ///   (a text value is not UTF-8), ``CastDiscoveryError/Code/invalidNumber`` (`ca`, `ve`, `st`).
    public init(txt: CastTXTRecord, endpoints: Set<CastDeviceEndpoint> = [], serviceName: String? = nil) throws(CastDiscoveryError) {
        func text(_ key: String) throws(CastDiscoveryError) -> String? {
            guard let raw = txt.rawValue(key) else { return nil }
            guard let value = String(validating: raw, as: UTF8.self) else {
                throw CastDiscoveryError(code: .invalidUTF8, message: "TXT value of \"\(key)\" is not valid UTF-8")
            }
            return value
        }
        func number(_ key: String, max: UInt64) throws(CastDiscoveryError) -> UInt64? {
            guard let value = try text(key) else { return nil }
            guard !value.isEmpty, value.utf8.count <= 20, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let number = UInt64(value), number <= max
            else {
                throw CastDiscoveryError(code: .invalidNumber,
                    message: "TXT value \(key)=\(CastDeviceID.quote(value)) is not a decimal number up to \(max)")
            }
            return number
        }
        guard let idText = try text("id") else {
            throw CastDiscoveryError(code: .missingKey, message: "TXT record has no \"id\" key")
        }
        guard let name = try text("fn"), !name.isEmpty else {
            throw CastDiscoveryError(code: .missingKey, message: "TXT record has no \"fn\" (friendly name) key")
        }
        let id = try CastDeviceID(parsing: idText)
        let ca = try number("ca", max: .max)
        let ve = try number("ve", max: 99)
        let st = try number("st", max: 1)
        var all: [String: String] = [:]
        for entry in txt.entries {
            all[entry.key] = entry.value.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        let status = try text("rs")
        self.init(
            id: id, friendlyName: name, model: try text("md").flatMap { $0.isEmpty ? nil : $0 },
            capabilities: CastDeviceCapabilities(rawValue: ca ?? 0), advertisesCapabilities: ca != nil,
            receiverStatusText: status.flatMap { $0.isEmpty ? nil : $0 }, protocolVersion: ve.map(Int.init),
            isBusy: st.map { $0 == 1 }, iconPath: try text("ic").flatMap { $0.isEmpty ? nil : $0 },
            serviceName: serviceName, txtRecord: all, endpoints: endpoints, sources: [.mdns])
    }

    /// The TXT record a receiver with these properties advertises: `id`, `ve`, `md`, `ic`,
    /// `fn`, `ca`, `st`, `rs`, in the order real devices use. (The undocumented `cd`, `rm`,
    /// `bs` and `nf` are left out: no sender reads them.)
    public func advertisedTXTRecord() throws(CastDiscoveryError) -> CastTXTRecord {
        var pairs: [(key: String, value: String)] = [("id", id.txtValue)]
        pairs.append(("ve", String(format2: protocolVersion ?? 5)))
        if let model { pairs.append(("md", model)) }
        pairs.append(("ic", iconPath ?? "/setup/icon.png"))
        pairs.append(("fn", friendlyName))
        pairs.append(("ca", String(capabilities.rawValue)))
        pairs.append(("st", isBusy == true ? "1" : "0"))
        pairs.append(("rs", receiverStatusText ?? ""))
        return try CastTXTRecord(pairs)
    }

    /// The DNS-SD instance name real devices use: the model with spaces as dashes (at most 20
    /// bytes), a dash, and the id without dashes — e.g. `Chromecast-Audio-42fe…`.
    public static func serviceInstanceName(model: String, id: CastDeviceID) -> String {
        var prefix = ""
        for character in model.replacingOccurrences(of: " ", with: "-") {
            if prefix.utf8.count + String(character).utf8.count > 20 { break }
            prefix.append(character)
        }
        return prefix.isEmpty ? id.txtValue : "\(prefix)-\(id.txtValue)"
    }
}

extension String {
    /// Two-digit zero-padded decimal.
    init(format2 value: Int) {
        self = value < 10 && value >= 0 ? "0\(value)" : String(value)
    }
}
