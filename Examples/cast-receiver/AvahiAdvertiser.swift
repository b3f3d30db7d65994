import CastDiscovery
import CastEmulator

/// Publishes the emulated device through avahi-daemon with the discovery module's publisher.
struct AvahiAdvertiser: EmulatedReceiverAdvertiser {
    let publisher: CastServicePublisher

    /// An advertiser for a receiver listening on `host`: a wildcard address ("::", "0.0.0.0")
    /// publishes on every interface, any other address only on the interface that holds it, so
    /// senders never learn an address the receiver does not listen on.
    /// - Throws: when no interface holds `host`.
    init(listeningOn host: String) throws {
        var interface: String?
        if !["::", "0.0.0.0", ""].contains(host) {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            guard let match = NetworkInterface.current().first(where: { item in
                item.addresses.contains { $0 == bare || $0.hasPrefix(bare + "%") }
            }) else {
                throw CastDiscoveryError(code: .invalidArgument, message: "no network interface holds \(host)")
            }
            interface = match.name
        }
        publisher = CastServicePublisher(configuration: .init(interface: interface))
    }

    func start(_ advertisement: EmulatedReceiverAdvertisement) async throws {
        try await publish(advertisement)
    }

    func update(_ advertisement: EmulatedReceiverAdvertisement) async {
        try? await publish(advertisement)
    }

    func stop() async {
        await publisher.withdraw()
    }

    private func publish(_ advertisement: EmulatedReceiverAdvertisement) async throws {
        let txt = try CastTXTRecord(advertisement.txt)
        let name = try await publisher.publish(name: advertisement.instanceName, port: advertisement.port, txt: txt)
        say("cast-receiver: advertised as \(name).\(advertisement.serviceType)")
    }
}
