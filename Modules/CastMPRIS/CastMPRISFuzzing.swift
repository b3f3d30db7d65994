import CDBus
import CastMedia
import CastMediaMetadata
import CastQueue
import Foundation

/// Entry points for the libFuzzer targets in `Tests/Fuzz` (not API).
@_spi(Fuzzing) public enum CastMPRISFuzzing {
    /// Reads `bytes` as a message from the bus, the way ``CastMPRISPlayer`` reads a method call, and
    /// checks what it does with it.
    ///
    /// libdbus (`dbus_message_demarshal`) is the reference: whatever it accepts,
    /// - Castor's reader gives values whose signatures make up the message's signature, and its
    ///   writer puts them back into a message that libdbus reads as the same values;
    /// - every answer the MPRIS rules give, for each of a few player states, can be sent: a reply's
    ///   values encode, an error has a valid name, and a command stays inside what the state allows
    ///   (a seek inside the track, a rate inside the range, a volume in 0...1, an `http(s)` URI with a
    ///   host, a queue item the tracklist holds).
    /// A violation stops the process with a description (a finding).
    public static func fuzzBusMessage(_ bytes: UnsafeRawBufferPointer) {
        guard let message = try? DBusMessage.demarshal(Array(bytes)) else { return }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments()
        } catch {
            // Unix file descriptors are the one type the reader refuses by design, in the arguments
            // or inside a variant (whose signature is in the body, not the message's).
            guard error.message == "unsupported D-Bus type h" else {
                fatalError("libdbus read a message of signature \(message.signature) that Castor's reader refused: \(error)")
            }
            checkSendable(.failure(.invalidArgs(error.message)), answering: message)
            return
        }
        checkRoundTrip(arguments, signature: message.signature)

        guard message.kind == .methodCall, let member = message.member else { return }
        let call = MPRISCall(interface: message.interface, member: member, signature: message.signature, arguments: arguments)
        for state in makeStates() {
            let response = MPRISRequest.response(to: call, state: state)
            guard response == MPRISRequest.response(to: call, state: state) else {
                fatalError("two answers to one call on one state: \(call)")
            }
            switch response {
            case .reply(let values): checkSendable(.success(values), answering: message)
            case .error(let error): checkSendable(.failure(error), answering: message)
            case .run(let command): check(command, for: call, state: state)
            }
        }
    }

    /// What Castor read, written by Castor and read back by libdbus, is the same.
    private static func checkRoundTrip(_ values: [DBusValue], signature: String) {
        guard values.map(\.signature).joined() == signature else {
            fatalError("the values read have signatures \(values.map(\.signature)), the message \(signature)")
        }
        guard let copy = DBusMessage.methodCall(destination: nil, path: "/fuzz", interface: nil, member: "Fuzz") else {
            fatalError("libdbus made no method call")
        }
        do {
            try copy.append(values)
        } catch {
            fatalError("values read from a valid message could not be written back: \(error) (signature \(signature))")
        }
        guard copy.signature == signature else { fatalError("written back with signature \(copy.signature), not \(signature)") }
        guard let wire = copy.marshalled() else { fatalError("libdbus could not marshal the copy") }
        let again: [DBusValue]
        do {
            again = try DBusMessage.demarshal(wire).arguments()
        } catch {
            fatalError("libdbus refused the copy Castor wrote: \(error) (signature \(signature))")
        }
        guard again.count == values.count, zip(values, again).allSatisfy(identical) else {
            fatalError("written and read back as \(again), not \(values)")
        }
    }

    /// Equal values, doubles compared by their bits (NaN is a value on the bus like any other).
    private static func identical(_ lhs: DBusValue, _ rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.array(let e1, let a), .array(let e2, let b)): e1 == e2 && a.count == b.count && zip(a, b).allSatisfy(identical)
        case (.dictEntry(let k1, let v1), .dictEntry(let k2, let v2)): identical(k1, k2) && identical(v1, v2)
        case (.variant(let a), .variant(let b)): identical(a, b)
        case (.structure(let a), .structure(let b)): a.count == b.count && zip(a, b).allSatisfy(identical)
        default: lhs == rhs
        }
    }

    /// Builds the answer the player would send, as it builds it: a method return with the values, or
    /// an error. libdbus aborts the process on an invalid error name or message, so each is checked first.
    private static func checkSendable(_ result: Result<[DBusValue], MPRISBusError>, answering call: DBusMessage) {
        switch result {
        case .success(let values):
            guard let answer = call.makeReturn() else { fatalError("libdbus made no method return") }
            do {
                try answer.append(values)
            } catch {
                fatalError("a reply the MPRIS rules gave does not encode: \(error) (\(values))")
            }
        case .failure(let error):
            guard dbus_validate_error_name(error.name, nil) != 0 else { fatalError("invalid D-Bus error name \(error.name)") }
            guard dbus_validate_utf8(error.message, nil) != 0, !error.message.utf8.contains(0) else {
                fatalError("an error message libdbus would refuse: \(error.message.debugDescription)")
            }
            guard call.makeError(name: error.name, message: error.message) != nil else { fatalError("libdbus made no error for \(error)") }
        }
    }

    /// A command decided for a call stays inside what the state allows.
    private static func check(_ command: MPRISCommand, for call: MPRISCall, state: MPRISState) {
        func fail(_ problem: String) -> Never { fatalError("\(problem): \(command) for \(call.member) on \(state.currentTrack)") }
        switch command {
        case .quit: guard state.canQuit else { fail("Quit where CanQuit is false") }
        case .tracksMetadata: break  // a query: allowed without CanControl
        default: guard state.canControl else { fail("a command on a player that cannot be controlled") }
        }
        switch command {
        case .seek(let position):
            guard state.canSeek else { fail("a seek where CanSeek is false") }
            guard position >= .zero else { fail("a seek before the start") }
            if let length = state.length, position > .microseconds(length) { fail("a seek past the end") }
        case .setRate(let rate):
            guard rate.isFinite, rate >= state.minimumRate, rate <= state.maximumRate else { fail("a rate outside the range") }
        case .setVolume(let level):
            guard level >= 0, level <= 1, state.canSetVolume else { fail("a volume outside 0...1, or on a fixed volume") }
        case .open(let url, let mimeType), .add(let url, let mimeType, _, _):
            guard let scheme = url.scheme?.lowercased(), MPRISOptions.uriSchemes.contains(scheme) else { fail("a URI the device cannot fetch") }
            guard url.host?.isEmpty == false else { fail("a URI without a host") }
            guard url.absoluteString.utf8.count <= MPRISRequest.maxURILength else { fail("a URI longer than the limit") }
            guard MPRISOptions.mimeTypes.contains(mimeType) else { fail("a media type the receiver does not play") }
            if case .add(_, _, let after?, _) = command, !state.itemIds.values.contains(after) { fail("an anchor not in the tracklist") }
        case .remove(let item), .goTo(let item):
            guard state.itemIds.values.contains(item) else { fail("an item not in the tracklist") }
        case .tracksMetadata(let tracks):
            guard case .array(_, let asked)? = call.arguments.first, tracks.count <= asked.count else { fail("more tracks than asked") }
        case .play, .pause, .stop, .next, .previous, .quit, .setRepeatMode, .setShuffle:
            break
        }
    }

    /// The player states every call is answered on: no session; a three-item queue playing with
    /// every command, a track list and a volume; the same paused and read-only; a live stream
    /// (no length) whose receiver allows nothing but pause.
    ///
    /// Made anew for each input: kept in a static, their indirect enum payloads (pointers with tag
    /// bits set) would look leaked to LeakSanitizer once the first input allocated them.
    private static func makeStates() -> [MPRISState] {
        let options = MPRISOptions(desktopEntry: "castor", canControl: true, canQuit: true, hasTrackList: true, maxTracks: 50,
                                   imagePicker: ClosestSizeImagePicker(), imageHints: nil)
        var readOnly = options
        readOnly.canControl = false
        readOnly.canQuit = false
        readOnly.hasTrackList = false
        func song(_ n: Int) -> MediaInformation {
            var metadata = CastMetadata(title: "Song \(n)", metadataType: .musicTrack)
            metadata.artist = "Artist \(n)"
            return MediaInformation(contentId: "http://example.com/song\(n).mp3", contentType: "audio/mpeg", duration: 200, metadata: metadata)
        }
        let all: SupportedMediaCommands = [.pause, .seek, .queueNext, .queuePrevious, .queueShuffle, .queueRepeat, .playbackRate]
        func queue(state: PlayerState, shouldPlay: Bool) -> MPRISSnapshot {
            MPRISSnapshot(
                identity: "Living Room", status: MediaStatus(mediaSessionId: 7, playerState: state, currentTime: 10, supportedMediaCommands: all,
                                                             media: song(2), currentItemId: 2),
                shouldPlay: shouldPlay, repeatMode: .all, rate: 1.5, rateRange: 0.5...2, volume: 0.5, position: .seconds(10),
                seekableRange: .zero ... .seconds(200), canGoNext: true, canGoPrevious: true,
                items: (1...3).map { MPRISSnapshot.Item(id: $0, media: song($0)) }, currentItemId: 2)
        }
        let live = MPRISSnapshot(
            identity: "Kitchen", status: MediaStatus(mediaSessionId: 3, playerState: .playing, currentTime: 0, supportedMediaCommands: [.pause],
                                                     media: MediaInformation(contentId: "http://example.com/live.m3u8",
                                                                             contentType: "application/x-mpegurl", streamType: .live)),
            shouldPlay: true, volume: 1, canSetVolume: false, position: .seconds(30))
        return [
            MPRISState(MPRISSnapshot(identity: "Idle"), options: options),
            MPRISState(queue(state: .playing, shouldPlay: true), options: options),
            MPRISState(queue(state: .paused, shouldPlay: false), options: readOnly),
            MPRISState(live, options: options),
        ]
    }
}
