import Foundation

/// Publishes the emulated device on the network (mDNS `_googlecast._tcp`).
///
/// EmulatedReceiver builds the advertisement (instance name and the TXT record a real device publishes);
/// a discovery module supplies the publisher, for example an Avahi one. The receiver calls
/// ``start(_:)`` once it listens, ``update(_:)`` when the running app changes (`rs`, `st`), and
/// ``stop()`` when it stops.
public protocol EmulatedReceiverAdvertiser: Sendable {
    /// Publishes the device.
    func start(_ advertisement: EmulatedReceiverAdvertisement) async throws
    /// Replaces the published TXT record.
    func update(_ advertisement: EmulatedReceiverAdvertisement) async
    /// Withdraws the device.
    func stop() async
}

extension EmulatedReceiverAdvertiser {
    /// Does nothing: publishers that cannot update keep the first record.
    public func update(_ advertisement: EmulatedReceiverAdvertisement) async {}
}

/// What an emulated device publishes over mDNS.
public struct EmulatedReceiverAdvertisement: Sendable, Hashable {
    /// The friendly name (`fn`).
    public var name: String
    /// The device id.
    public var id: UUID
    /// The model name (`md`).
    public var model: String
    /// The TCP port the receiver listens on (the SRV record's port).
    public var port: Int
    /// The service instance name: `<model, spaces → '-', ≤ 20 bytes>-<id without dashes>`.
    public var instanceName: String
    /// The DNS-SD service type.
    public var serviceType: String { "_googlecast._tcp" }
    /// The TXT record: `id cd rm ve md ic fn ca st bs nf rs`.
    public var txt: [String: String]

    /// Builds the advertisement of a device, as a real Cast device fills it.
    ///
    /// - Parameters:
    ///   - configuration: the device's name, id, kind and model.
    ///   - port: the port the device listens on.
    ///   - runningAppStatus: the running app's status text (`rs`), empty when idle.
    ///   - busy: whether an app invites senders to join (`st=1`).
    public init(
        configuration: EmulatedReceiverConfiguration, port: Int, runningAppStatus: String = "", busy: Bool = false
    ) {
        self.name = configuration.name
        self.id = configuration.id
        self.model = configuration.model
        self.port = port
        let hexId = configuration.id.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var modelPart = configuration.model.replacingOccurrences(of: " ", with: "-")
        while modelPart.utf8.count > 20 { modelPart.removeLast() }
        self.instanceName = "\(modelPart)-\(hexId)"
        // Stable per-device pseudo-identifiers derived from the id, so a restart publishes the same record.
        let bytes = withUnsafeBytes(of: configuration.id.uuid) { Array($0) }
        let cd = bytes.reversed().map { String(format: "%02X", $0) }.joined()
        let rm = bytes.prefix(8).map { String(format: "%02X", $0 ^ 0x5A) }.joined()
        let bs = "FA8FCA" + bytes.suffix(3).map { String(format: "%02X", $0) }.joined()
        self.txt = [
            "id": hexId,
            "cd": cd,
            "rm": rm,
            "ve": String(format: "%02d", configuration.protocolVersion),
            "md": configuration.model,
            "ic": "/setup/icon.png",
            "fn": configuration.name,
            "ca": String(configuration.kind.capabilityBits),
            "st": busy ? "1" : "0",
            "bs": bs,
            "nf": "1",
            "rs": runningAppStatus,
        ]
    }
}
