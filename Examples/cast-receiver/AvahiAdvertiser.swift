import CastDiscovery
import CastReceiver

/// Publishes the emulated device through avahi-daemon with the discovery module's publisher.
struct AvahiAdvertiser: CastReceiverAdvertiser {
    let publisher = CastServicePublisher()

    func start(_ advertisement: CastReceiverAdvertisement) async throws {
        try await publish(advertisement)
    }

    func update(_ advertisement: CastReceiverAdvertisement) async {
        try? await publish(advertisement)
    }

    func stop() async {
        await publisher.withdraw()
    }

    private func publish(_ advertisement: CastReceiverAdvertisement) async throws {
        let txt = try CastTXTRecord(advertisement.txt)
        let name = try await publisher.publish(name: advertisement.instanceName, port: advertisement.port, txt: txt)
        say("cast-receiver: advertised as \(name).\(advertisement.serviceType)")
    }
}
