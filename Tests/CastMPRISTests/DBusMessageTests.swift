@testable import CastMPRIS
import Testing

/// Values written into a libdbus message and read back, through the wire format.
@Suite struct DBusMessageTests {
    func roundTrip(_ values: [DBusValue]) throws -> [DBusValue] {
        let message = try #require(DBusMessage.signal(path: MPRISNames.objectPath, interface: MPRISNames.properties, member: "PropertiesChanged"))
        try message.append(values)
        let bytes = try #require(message.marshalled())
        return try DBusMessage.demarshal(bytes).arguments()
    }

    @Test(arguments: [MPRISNames.root, MPRISNames.player, MPRISNames.trackList])
    func everyInterfaceEncodesAndReadsBack(interface: String) throws {
        let state = Fixtures.state(Fixtures.playing())
        let properties = try #require(state.properties(of: interface))
        for (name, value) in properties {
            #expect(throws: Never.self, "\(name)") { _ = try roundTrip([.variant(value)]) }
        }
        let values: [DBusValue] = [.string(interface), .vardict(properties), .strings([])]
        #expect(try roundTrip(values) == values)
    }

    @Test func idleStateEncodes() throws {
        let state = Fixtures.state(MPRISSnapshot(identity: "Idle"))
        for interface in [MPRISNames.root, MPRISNames.player, MPRISNames.trackList] {
            let values: [DBusValue] = [.vardict(try #require(state.properties(of: interface)))]
            #expect(try roundTrip(values) == values)
        }
    }
}
