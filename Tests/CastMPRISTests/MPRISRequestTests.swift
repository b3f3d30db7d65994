@testable import CastMPRIS
import CastMedia
import Foundation
import Testing

/// A call and a state in, the answer out: what the spec prescribes for good and bad bus input.
@Suite struct MPRISRequestTests {
    let playing = Fixtures.state(Fixtures.playing())

    func call(_ interface: String?, _ member: String, _ arguments: [DBusValue] = []) -> MPRISCall {
        MPRISCall(interface: interface, member: member, signature: arguments.map(\.signature).joined(), arguments: arguments)
    }

    func player(_ member: String, _ arguments: [DBusValue] = [], state: MPRISState? = nil) -> MPRISResponse {
        MPRISRequest.response(to: call(MPRISNames.player, member, arguments), state: state ?? playing)
    }

    func set(_ property: String, _ value: DBusValue, state: MPRISState? = nil) -> MPRISResponse {
        MPRISRequest.response(to: call(MPRISNames.properties, "Set", [.string(MPRISNames.player), .string(property), .variant(value)]),
                              state: state ?? playing)
    }

    func errorName(_ response: MPRISResponse) -> String? {
        if case .error(let error) = response { return error.name }
        return nil
    }

    @Test func transportMethods() {
        #expect(player("PlayPause") == .run(.pause))
        #expect(player("Pause") == .run(.pause))
        #expect(player("Play") == .done)  // already playing
        #expect(player("Next") == .run(.next))
        #expect(player("Previous") == .run(.previous))
        #expect(player("Stop") == .run(.stop))
        let paused = Fixtures.state(Fixtures.playing(state: .paused, shouldPlay: false))
        #expect(player("PlayPause", state: paused) == .run(.play))
        #expect(player("Play", state: paused) == .run(.play))
        #expect(player("Pause", state: paused) == .done)
        #expect(player("Next", state: Fixtures.state(Fixtures.playing(current: 3))) == .done)  // CanGoNext false: no-op
    }

    @Test func seekIsRelativeAndPastTheEndActsLikeNext() {
        #expect(player("Seek", [.int64(5_000_000)]) == .run(.seek(to: .seconds(15))))
        #expect(player("Seek", [.int64(-60_000_000)]) == .run(.seek(to: .zero)))
        #expect(player("Seek", [.int64(500_000_000)]) == .run(.next))
        #expect(player("Seek", [.int64(.max)]) == .run(.next))
        #expect(player("Seek", [.int64(500_000_000)], state: Fixtures.state(Fixtures.playing(current: 3))) == .done)
        #expect(player("Seek", [.int64(1)], state: Fixtures.state(Fixtures.playing(commands: SupportedMediaCommands.pause))) == .done)
    }

    @Test func setPositionChecksTheTrackId() {
        #expect(player("SetPosition", [.objectPath(playing.currentTrack), .int64(30_000_000)]) == .run(.seek(to: .seconds(30))))
        #expect(player("SetPosition", [.objectPath("/org/castor/Track/7_1"), .int64(30_000_000)]) == .done)  // stale
        #expect(player("SetPosition", [.objectPath(playing.currentTrack), .int64(-1)]) == .done)
        #expect(player("SetPosition", [.objectPath(playing.currentTrack), .int64(201_000_000)]) == .done)  // past the end
        #expect(errorName(player("SetPosition", [.objectPath(MPRISNames.noTrack), .int64(0)])) == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func wrongSignaturesAreInvalidArgs() {
        #expect(errorName(player("Seek", [.string("5")])) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(errorName(player("PlayPause", [.int32(1)])) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(errorName(player("Frobnicate")) == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(errorName(MPRISRequest.response(to: call("org.example.Nope", "Play"), state: playing)) == "org.freedesktop.DBus.Error.UnknownInterface")
    }

    @Test func openUriAcceptsWhatADeviceCanFetch() {
        #expect(player("OpenUri", [.string("http://example.com/a.mp3")]) == .run(.open(URL(string: "http://example.com/a.mp3")!, mimeType: "audio/mpeg")))
        #expect(errorName(player("OpenUri", [.string("not a uri")])) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(errorName(player("OpenUri", [.string("")])) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(errorName(player("OpenUri", [.string("file:///home/me/a.mp3")])) == "org.freedesktop.DBus.Error.NotSupported")
        #expect(errorName(player("OpenUri", [.string("http:///a.mp3")])) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(errorName(player("OpenUri", [.string("http://example.com/" + String(repeating: "a", count: 9000) + ".mp3")])) == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func writableProperties() {
        #expect(set("Volume", .double(0.4)) == .run(.setVolume(0.4)))
        #expect(set("Volume", .double(-2)) == .run(.setVolume(0)))
        #expect(set("Volume", .double(.nan)) == .done)
        #expect(set("LoopStatus", .string("Playlist")) == .run(.setRepeatMode(.all)))
        #expect(set("LoopStatus", .string("Track")) == .run(.setRepeatMode(.one)))
        #expect(set("LoopStatus", .string("None")) == .done)  // already
        #expect(errorName(set("LoopStatus", .string("Forever"))) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(set("Shuffle", .bool(true)) == .run(.setShuffle(true)))
        #expect(errorName(set("Shuffle", .string("yes"))) == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(set("Rate", .double(1.5)) == .run(.setRate(1.5)))
        #expect(set("Rate", .double(8)) == .done)  // outside MinimumRate...MaximumRate: ignored
        #expect(set("Rate", .double(0)) == .run(.pause))
        #expect(errorName(set("Identity", .string("x"))) == "org.freedesktop.DBus.Error.UnknownProperty")  // not a Player property
        #expect(errorName(set("PlaybackStatus", .string("Playing"))) == "org.freedesktop.DBus.Error.PropertyReadOnly")
    }

    @Test func propertiesGetAndGetAll() {
        let get = MPRISRequest.response(to: call(MPRISNames.properties, "Get", [.string(MPRISNames.player), .string("PlaybackStatus")]), state: playing)
        #expect(get == MPRISResponse.reply([DBusValue.variant(.string("Playing"))]))
        let missing = MPRISRequest.response(to: call(MPRISNames.properties, "Get", [.string(MPRISNames.player), .string("Nope")]), state: playing)
        #expect(errorName(missing) == "org.freedesktop.DBus.Error.UnknownProperty")
        let all = MPRISRequest.response(to: call(MPRISNames.properties, "GetAll", [.string(MPRISNames.root)]), state: playing)
        guard case .reply(let values) = all, let dictionary = values.first?.dictionaryValue else {
            Issue.record("GetAll gave \(all)")
            return
        }
        #expect(dictionary["Identity"] == .variant(.string("Living Room")))
        #expect(dictionary["CanQuit"] == .variant(.bool(true)))
    }

    @Test func readOnlyPlayerRefusesControl() {
        var options = Fixtures.options
        options.canControl = false
        let state = Fixtures.state(Fixtures.playing(), options: options)
        #expect(errorName(player("PlayPause", state: state)) == "org.freedesktop.DBus.Error.NotSupported")
        #expect(errorName(set("Volume", .double(0.1), state: state)) == "org.freedesktop.DBus.Error.NotSupported")
    }

    @Test func trackListGoToAndStaleIds() {
        let goTo = MPRISRequest.response(to: call(MPRISNames.trackList, "GoTo", [.objectPath("/org/castor/Track/7_3")]), state: playing)
        #expect(goTo == .run(.goTo(item: 3)))
        let stale = MPRISRequest.response(to: call(MPRISNames.trackList, "GoTo", [.objectPath("/org/castor/Track/6_3")]), state: playing)
        #expect(stale == .done)
    }
}
