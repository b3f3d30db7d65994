import CastMedia
import CastctlKit
import Castor
import Foundation
import Testing

@Suite struct SavedStateTests {
    static func playback() throws -> CastResumeState {
        var second = CastAsset.url(URL(string: "http://127.0.0.1:9/b.mp3")!, configuration: .init(mimeType: "audio/mpeg", duration: 90),
                                   metadata: .init(title: "B"))
        second.tracks = [MediaTrack(trackId: 1, type: .text, subtype: .subtitles, contentId: "http://127.0.0.1:9/b.vtt",
                                    contentType: "text/vtt", name: "English", language: "en")]
        var options = CastLoadOptions(index: 1, time: .milliseconds(30_500), shouldPlay: true, playbackSpeed: 1.5, repeatMode: .all)
        options.activeTrackIds = [1]
        var state = try #require(CastResumeState(assets: [.identifier("a"), second], options: options))
        state.setMediaSelection(language: "en", for: .legible)
        return state
    }

    @Test func roundTripThroughAFile() throws {
        let folder = try ScratchFolder()
        let snapshot = DeviceSnapshot(appId: "CC1AD845", playback: try Self.playback(), volume: .init(level: 0.3, muted: false),
                                      members: [.init(id: "m1", name: "Kitchen", volume: .init(level: 0.7, muted: true))])
        let saved = SavedStateFile(snapshot: snapshot, device: "Living Room TV", savedAt: Date(timeIntervalSince1970: 1_800_000_000))
        let path = folder.path + "/state.json"
        try saved.write(to: path)
        let read = try SavedStateFile.read(from: path)
        #expect(read == saved)
        #expect(read.snapshot.playback?.options.activeTrackIds == [1])
        #expect(read.snapshot.playback?.options.time == .milliseconds(30_500))
        #expect(snapshot.summary == "item 2 of 2 “B” at 0:00:30 ×1.5, tracks 1, volume 30 %, 1 group members")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"format\" : \"castctl-state\""))
        #expect(text.contains("\"savedAt\" : \"2027-01-15T08:00:00Z\""))
    }

    @Test(arguments: [
        (#"{"format":"something-else","version":1,"savedAt":"2027-01-15T08:00:00Z"}"#, "format is “something-else”"),
        (#"{"format":"castctl-state","version":2,"savedAt":"2027-01-15T08:00:00Z"}"#, "version 2 (this castctl reads up to 1)"),
        (#"{"format":"castctl-state","version":1}"#, "savedAt is missing"),
        (#"{"format":"castctl-state","version":1,"savedAt":"2027-01-15T08:00:00Z"}"#, "holds no playback"),
        (#"{"format":"castctl-state","version":1,"savedAt":"2027-01-15T08:00:00Z","playback":{"assets":[],"options":{"index":0}}}"#,
         "outside the 0 assets"),
        ("not json", "not a castctl saved state"),
    ])
    func badFilesAreClearErrors(json: String, message: String) {
        let error = #expect(throws: CastctlError.self) { try SavedStateFile(decoding: Data(json.utf8), file: "state.json") }
        #expect(error?.code == .malformedState)
        #expect(error?.description.hasPrefix("state.json: ") == true)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func aMissingFileAndAnOversizedOne() throws {
        let folder = try ScratchFolder()
        #expect((#expect(throws: CastctlError.self) { try SavedStateFile.read(from: folder.path + "/none.json") })?.code == .unreadableFile)
        let big = folder.path + "/big.json"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(SavedStateFile.maximumBytes + 1))
        try handle.close()
        #expect((#expect(throws: CastctlError.self) { try SavedStateFile.read(from: big) })?.message.contains("larger than") == true)
    }
}
