import CastQueue
import Foundation

/// A method call to `/org/mpris/MediaPlayer2`, as values.
struct MPRISCall: Sendable, Hashable {
    /// The interface, when the caller named one (D-Bus allows calls without).
    var interface: String?
    var member: String
    var signature: String
    var arguments: [DBusValue]
}

/// What the façade is asked to do for a call. Every command is valid for the state it was decided on.
enum MPRISCommand: Sendable, Hashable {
    case play, pause, stop, next, previous, quit
    /// Seek to an absolute position.
    case seek(to: Duration)
    case setRate(Double)
    case setRepeatMode(CastRepeatMode)
    case setShuffle(Bool)
    case setVolume(Double)
    /// Load a URL as the whole queue and play it (`OpenUri`).
    case open(URL, mimeType: String)
    /// Insert a URL after an item (`nil`: at the start), optionally making it current (`AddTrack`).
    case add(URL, mimeType: String, afterItem: Int?, makeCurrent: Bool)
    case remove(item: Int)
    case goTo(item: Int)
    /// Reply with the metadata of these tracks, fetching the items not known yet (`GetTracksMetadata`).
    case tracksMetadata([String])
}

/// How a call is answered.
enum MPRISResponse: Sendable, Hashable {
    /// Reply now with these values (a no-op is an empty reply).
    case reply([DBusValue])
    /// Reply with a D-Bus error; nothing changes.
    case error(MPRISBusError)
    /// Run a command on the façade, then reply (empty) or with the error it fails with.
    case run(MPRISCommand)

    static let done = MPRISResponse.reply([])
}

/// The MPRIS 2.2 rules: a pure function from a call and the state to an answer.
enum MPRISRequest {
    /// The longest URI accepted by `OpenUri` and `AddTrack`.
    static let maxURILength = 8192

    static func response(to call: MPRISCall, state: MPRISState) -> MPRISResponse {
        let interface = call.interface ?? owningInterface(of: call.member, hasTrackList: state.hasTrackList)
        switch interface {
        case MPRISNames.properties?: return properties(call, state: state)
        case MPRISNames.introspectable?:
            guard call.member == "Introspect" else { return .error(.unknownMethod("No method \(call.member) in \(MPRISNames.introspectable)")) }
            return .reply([.string(MPRISIntrospection.xml(hasTrackList: state.hasTrackList))])
        case MPRISNames.root?: return root(call, state: state)
        case MPRISNames.player?: return player(call, state: state)
        case MPRISNames.trackList? where state.hasTrackList: return trackList(call, state: state)
        default: return .error(.unknownInterface("No interface \(call.interface ?? "") on \(MPRISNames.objectPath)"))
        }
    }

    /// For a call without an interface: the interface that has the member (each member name is unique here).
    static func owningInterface(of member: String, hasTrackList: Bool) -> String? {
        switch member {
        case "Get", "GetAll", "Set": MPRISNames.properties
        case "Introspect": MPRISNames.introspectable
        case "Raise", "Quit": MPRISNames.root
        case "Next", "Previous", "Pause", "PlayPause", "Stop", "Play", "Seek", "SetPosition", "OpenUri": MPRISNames.player
        case "GetTracksMetadata", "AddTrack", "RemoveTrack", "GoTo": hasTrackList ? MPRISNames.trackList : nil
        default: nil
        }
    }

    private static func expect(_ call: MPRISCall, _ signature: String) -> MPRISBusError? {
        call.signature == signature ? nil : .invalidArgs("\(call.member) takes (\(signature)), not (\(call.signature))")
    }

    private static let readOnlyFromControl = MPRISBusError.notSupported("This player is read-only (CanControl is false)")

    // MARK: org.freedesktop.DBus.Properties

    private static func properties(_ call: MPRISCall, state: MPRISState) -> MPRISResponse {
        switch call.member {
        case "Get":
            if let error = expect(call, "ss") { return .error(error) }
            guard let name = call.arguments[1].stringValue, let interface = call.arguments[0].stringValue else { return .error(.invalidArgs("Bad arguments")) }
            switch lookUp(interface: interface, property: name, state: state) {
            case .success(let value): return .reply([.variant(value)])
            case .failure(let error): return .error(error)
            }
        case "GetAll":
            if let error = expect(call, "s") { return .error(error) }
            guard let interface = call.arguments[0].stringValue else { return .error(.invalidArgs("Bad arguments")) }
            guard let properties = state.properties(of: interface) else {
                return .error(.unknownInterface("No interface \(interface) on \(MPRISNames.objectPath)"))
            }
            return .reply([.vardict(properties)])
        case "Set":
            if let error = expect(call, "ssv") { return .error(error) }
            guard let interface = call.arguments[0].stringValue, let name = call.arguments[1].stringValue,
                  let value = call.arguments[2].variantValue else { return .error(.invalidArgs("Bad arguments")) }
            return set(interface: interface, property: name, value: value, state: state)
        default:
            return .error(.unknownMethod("No method \(call.member) in \(MPRISNames.properties)"))
        }
    }

    private static func lookUp(interface: String, property: String, state: MPRISState) -> Result<DBusValue, MPRISBusError> {
        let interfaces = interface.isEmpty ? [MPRISNames.root, MPRISNames.player, MPRISNames.trackList] : [interface]
        var known = false
        for name in interfaces {
            guard let properties = state.properties(of: name) else { continue }
            known = true
            if let value = properties[property] { return .success(value) }
        }
        return .failure(known ? .unknownProperty("No property \(property) in \(interface)")
                              : .unknownInterface("No interface \(interface) on \(MPRISNames.objectPath)"))
    }

    private static let writable: [String: Set<String>] = [MPRISNames.player: ["LoopStatus", "Rate", "Shuffle", "Volume"]]

    private static func set(interface: String, property: String, value: DBusValue, state: MPRISState) -> MPRISResponse {
        let owner = interface.isEmpty
            ? [MPRISNames.root, MPRISNames.player, MPRISNames.trackList].first { state.properties(of: $0)?[property] != nil }
            : interface
        guard let owner, let properties = state.properties(of: owner) else {
            return .error(.unknownInterface("No interface \(interface) on \(MPRISNames.objectPath)"))
        }
        guard properties[property] != nil else { return .error(.unknownProperty("No property \(property) in \(owner)")) }
        guard writable[owner]?.contains(property) == true else { return .error(.propertyReadOnly("\(owner).\(property) is read-only")) }
        guard state.canControl else { return .error(readOnlyFromControl) }
        switch property {
        case "LoopStatus":
            guard let text = value.stringValue, let loop = MPRISState.LoopStatus(rawValue: text) else {
                return .error(.invalidArgs("LoopStatus is \"None\", \"Track\" or \"Playlist\""))
            }
            guard loop != state.loopStatus else { return .done }
            switch loop {
            case .none: return .run(.setRepeatMode(.off))
            case .track: return .run(.setRepeatMode(.one))
            case .playlist: return .run(.setRepeatMode(.all))
            }
        case "Shuffle":
            guard let shuffle = value.boolValue else { return .error(.invalidArgs("Shuffle is a boolean")) }
            return shuffle == state.shuffle || state.currentTrack == MPRISNames.noTrack ? .done : .run(.setShuffle(shuffle))
        case "Rate":
            guard let rate = value.doubleValue else { return .error(.invalidArgs("Rate is a double")) }
            // 0.0 acts as Pause; a value outside MinimumRate...MaximumRate (or not a number) is ignored.
            if rate == 0 { return state.playbackStatus == .playing && state.canPause ? .run(.pause) : .done }
            guard rate.isFinite, rate >= state.minimumRate, rate <= state.maximumRate, rate != state.rate,
                  state.currentTrack != MPRISNames.noTrack else { return .done }
            return .run(.setRate(rate))
        case "Volume":
            guard let volume = value.doubleValue else { return .error(.invalidArgs("Volume is a double")) }
            guard volume.isFinite || volume == .infinity else { return .done }
            guard state.canSetVolume else { return .error(.notSupported("The device's volume cannot be changed")) }
            // A negative value sets 0.0; the device's maximum is 1.0.
            let level = min(1, max(0, volume))
            return level == state.volume ? .done : .run(.setVolume(level))
        default:
            return .error(.propertyReadOnly("\(owner).\(property) is read-only"))
        }
    }

    // MARK: org.mpris.MediaPlayer2

    private static func root(_ call: MPRISCall, state: MPRISState) -> MPRISResponse {
        if let error = expect(call, "") { return .error(error) }
        switch call.member {
        case "Raise": return .done  // CanRaise is false: does nothing
        case "Quit": return state.canQuit ? .run(.quit) : .error(.notSupported("CanQuit is false"))
        default: return .error(.unknownMethod("No method \(call.member) in \(MPRISNames.root)"))
        }
    }

    // MARK: org.mpris.MediaPlayer2.Player

    private static func player(_ call: MPRISCall, state: MPRISState) -> MPRISResponse {
        let signatures = ["Next": "", "Previous": "", "Pause": "", "PlayPause": "", "Stop": "", "Play": "",
                          "Seek": "x", "SetPosition": "ox", "OpenUri": "s"]
        guard let signature = signatures[call.member] else {
            return .error(.unknownMethod("No method \(call.member) in \(MPRISNames.player)"))
        }
        if let error = expect(call, signature) { return .error(error) }
        guard state.canControl else { return .error(readOnlyFromControl) }
        let playing = state.playbackStatus == .playing
        switch call.member {
        case "Next": return state.canGoNext ? .run(.next) : .done
        case "Previous": return state.canGoPrevious ? .run(.previous) : .done
        case "Pause": return state.canPause && playing ? .run(.pause) : .done
        case "PlayPause":
            guard state.canPause else { return .error(.notSupported("CanPause is false")) }
            if playing { return .run(.pause) }
            return state.canPlay ? .run(.play) : .done
        case "Stop": return state.playbackStatus == .stopped ? .done : .run(.stop)
        case "Play": return state.canPlay && !playing ? .run(.play) : .done
        case "Seek":
            guard let offset = call.arguments[0].int64Value else { return .error(.invalidArgs("Bad arguments")) }
            guard state.canSeek else { return .done }
            let (sum, overflow) = state.position.addingReportingOverflow(offset)
            let target = overflow ? (offset > 0 ? Int64.max : 0) : sum
            // Past the end acts like Next; before the start goes to 0.
            if let length = state.length, target > length { return state.canGoNext ? .run(.next) : .done }
            return .run(.seek(to: .microseconds(max(0, target))))
        case "SetPosition":
            guard let track = call.arguments[0].objectPathValue, let position = call.arguments[1].int64Value else {
                return .error(.invalidArgs("Bad arguments"))
            }
            guard track != MPRISNames.noTrack else { return .error(.invalidArgs("\(MPRISNames.noTrack) is not a valid track id")) }
            // Stale track ids, negative positions and positions past the end are ignored.
            guard state.canSeek, track == state.currentTrack, position >= 0, position <= (state.length ?? .max) else { return .done }
            return .run(.seek(to: .microseconds(position)))
        case "OpenUri":
            guard let text = call.arguments[0].stringValue else { return .error(.invalidArgs("Bad arguments")) }
            switch playable(text) {
            case .success(let (url, mimeType)): return .run(.open(url, mimeType: mimeType))
            case .failure(let error): return .error(error)
            }
        default:
            return .error(.unknownMethod("No method \(call.member) in \(MPRISNames.player)"))
        }
    }

    /// A URI a Cast device can fetch: absolute, `http` or `https`, with a host and a media type known from its extension.
    static func playable(_ text: String) -> Result<(URL, String), MPRISBusError> {
        guard !text.isEmpty, text.utf8.count <= maxURILength, !text.contains(where: { $0.isWhitespace || $0.isNewline }),
              let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            return .failure(.invalidArgs("Not a URI: \(text.prefix(200))"))
        }
        guard MPRISOptions.uriSchemes.contains(scheme) else {
            return .failure(.notSupported("The \(scheme) scheme is not supported (SupportedUriSchemes: http, https)"))
        }
        guard let host = url.host, !host.isEmpty else { return .failure(.invalidArgs("The URI has no host: \(text.prefix(200))")) }
        guard let mimeType = mimeType(forExtension: url.pathExtension) else {
            return .failure(.notSupported("Unknown media type for \(url.lastPathComponent.isEmpty ? text : url.lastPathComponent)"))
        }
        return .success((url, mimeType))
    }

    /// The media type of a file extension, for the types in ``MPRISOptions/mimeTypes``.
    static func mimeType(forExtension pathExtension: String) -> String? {
        switch pathExtension.lowercased() {
        case "mp4", "m4v": "video/mp4"
        case "webm": "video/webm"
        case "ts": "video/mp2t"
        case "m3u8": "application/x-mpegurl"
        case "mpd": "application/dash+xml"
        case "ism", "isml": "application/vnd.ms-sstr+xml"
        case "mp3": "audio/mpeg"
        case "m4a", "aac": "audio/mp4"
        case "flac": "audio/flac"
        case "ogg", "oga", "opus": "audio/ogg"
        case "wav": "audio/wav"
        case "weba": "audio/webm"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "bmp": "image/bmp"
        default: nil
        }
    }

    // MARK: org.mpris.MediaPlayer2.TrackList

    private static func trackList(_ call: MPRISCall, state: MPRISState) -> MPRISResponse {
        let signatures = ["GetTracksMetadata": "ao", "AddTrack": "sob", "RemoveTrack": "o", "GoTo": "o"]
        guard let signature = signatures[call.member] else {
            return .error(.unknownMethod("No method \(call.member) in \(MPRISNames.trackList)"))
        }
        if let error = expect(call, signature) { return .error(error) }
        switch call.member {
        case "GetTracksMetadata":
            guard case .array(_, let values) = call.arguments[0] else { return .error(.invalidArgs("Bad arguments")) }
            return .run(.tracksMetadata(values.compactMap(\.objectPathValue)))
        case "AddTrack":
            guard state.canControl else { return .error(readOnlyFromControl) }
            guard let text = call.arguments[0].stringValue, let after = call.arguments[1].objectPathValue,
                  let makeCurrent = call.arguments[2].boolValue else { return .error(.invalidArgs("Bad arguments")) }
            let afterItem: Int?
            if after == MPRISNames.noTrack {
                afterItem = nil
            } else if let item = state.itemIds[after] {
                afterItem = item
            } else {
                return .error(.invalidArgs("No track \(after) in the tracklist"))
            }
            switch playable(text) {
            case .success(let (url, mimeType)): return .run(.add(url, mimeType: mimeType, afterItem: afterItem, makeCurrent: makeCurrent))
            case .failure(let error): return .error(error)
            }
        default:  // RemoveTrack, GoTo
            guard state.canControl else { return .error(readOnlyFromControl) }
            guard let track = call.arguments[0].objectPathValue else { return .error(.invalidArgs("Bad arguments")) }
            guard track != MPRISNames.noTrack else { return .error(.invalidArgs("\(MPRISNames.noTrack) is not a valid track id")) }
            guard let item = state.itemIds[track] else { return .done }
            return .run(call.member == "GoTo" ? .goTo(item: item) : .remove(item: item))
        }
    }
}
