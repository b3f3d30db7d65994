import CastDiscoveryCore
import CastEmulator
import CastTestSupport
import Foundation
import Testing
@testable import Castor

/// The setting of the reconnection tests: one device at 10.0.0.5:8009 whose emulated receiver is reached
/// through an ``EndpointConnector`` (the test takes it off the network and puts it back), and a manual
/// clock that moves only when the test says so.
struct ReachableDevice {
    let clock = ManualClock()
    /// The device's id, as the emulated receiver reports it.
    let id = UUID()
    let device: CastDevice
    let endpoint: CastDeviceEndpoint
    let receiver: EmulatedReceiver
    let connector = EndpointConnector()

    init() throws {
        device = RediscoveryTests.device(id, at: "10.0.0.5", port: 8009)
        endpoint = try #require(device.preferredEndpoint)
        receiver = ConnectionLossTests.receiver(for: device, id: id)
        connector.register(receiver, at: endpoint)
    }

    /// A façade on the manual clock with `policy`, connecting through `connector` (the rig's own by default).
    func cast(
        _ policy: CastReconnectPolicy, browser: (any DeviceBrowser)? = nil, connector: (any CastDeviceConnector)? = nil,
        networkMonitor: (any CastNetworkMonitor)? = nil
    ) -> Cast {
        Cast(configuration: ConnectionLossTests.configuration(policy), browser: browser, connector: connector ?? self.connector,
             clock: clock, networkMonitor: networkMonitor)
    }
}
