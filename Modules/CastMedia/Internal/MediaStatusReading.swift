@_spi(JSONReading) package import CastJSON
import CastMediaMetadata

// MEDIA_STATUS read straight from the payload's bytes with `JSONPullReader`, without a `JSONValue` tree
// for the message, its statuses, media, tracks and queue items. The rules are those of the tree decoders
// (`init(json:)`), member by member, and `MediaStatusReadingTests` and the `media_status_bytes` fuzz target
// hold the two to the same results:
// - a member of the wrong type reads as absent (each `lenient…` read consumes the value whatever it is);
// - a repeated member keeps its last value (every occurrence overwrites, `nil` included);
// - `null` reads as absent; unknown members are skipped, or kept in `additionalFields` where the model
//   keeps them;
// - nested models are read from the stream too (metadata, text track style, volume, queue data, video
//   info), each with its `init(json:)`'s rules, strict ones included: a member of the wrong type makes the
//   whole model absent, as `model` does when `init(json:)` throws; only the rarely sent ones (live seekable
//   range, extended status) are read as a subtree and handed to their `init(json:)`.

extension MediaStatusMessage {
    /// Reads a MEDIA_STATUS message from its JSON text (UTF-8), with the result of
    /// `MediaStatusMessage(json: JSONValue(parsing: bytes))` but without building the tree.
    /// - Throws: `JSONError`: `malformed` when the bytes are not JSON, `typeMismatch` when the value is not
    ///   an object.
    package init(utf8 bytes: some Collection<UInt8>) throws(JSONError) {
        // The generic `bytes` only find their buffer; the reading is not generic (see `init(buffer:)`).
        self = try JSONPullReader.withContiguousBytes(of: bytes) { buffer in
            Result { () throws(JSONError) in try MediaStatusMessage(buffer: buffer) }
        }.get()
    }

    /// ``init(utf8:)`` over the bytes in `buffer`. Not generic: called from another module, the generic
    /// form runs unspecialized, looking up type metadata at run time on every call.
    package init(buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        self = try JSONPullReader.read(buffer: buffer) { reader throws(JSONError) in try Self.read(from: &reader).message }.get()
    }

    /// Reads a message from its JSON text (UTF-8) in one pass, with its routing type: what
    /// `CastChannelMessage.type` says of the same text (the first `type` that is a string, else the last
    /// such `responseType`) when the text is JSON. A sender learns both from one walk over the status
    /// instead of two (`type` sorts after `status`, so reading it alone skips the whole status first).
    /// - Throws: as ``init(utf8:)``.
    package static func routed(utf8 bytes: some Collection<UInt8>) throws(JSONError) -> (type: String?, message: MediaStatusMessage) {
        try JSONPullReader.withContiguousBytes(of: bytes) { buffer in
            Result { () throws(JSONError) in try routed(buffer: buffer) }
        }.get()
    }

    /// ``routed(utf8:)`` over the bytes in `buffer` (not generic, as ``init(buffer:)``).
    package static func routed(buffer: UnsafeBufferPointer<UInt8>) throws(JSONError) -> (type: String?, message: MediaStatusMessage) {
        try JSONPullReader.read(buffer: buffer) { reader throws(JSONError) in try read(from: &reader) }.get()
    }

    /// ``routed(utf8:)`` for the next message of a stream: a `media` object whose bytes are those of one
    /// that `memory` kept from the stream's earlier messages is not read again, its model is reused.
    /// Receivers send the same `media` in every status of a session, and it is most of a status's
    /// reading. `memory` is updated with this message's media when the message reads (and left as it
    /// was when it throws); it keeps at most ``MediaStatusMemory/capacity`` of them.
    package static func routed(
        utf8 bytes: some Collection<UInt8>, remembering memory: inout MediaStatusMemory
    ) throws(JSONError) -> (type: String?, message: MediaStatusMessage) {
        try JSONPullReader.withContiguousBytes(of: bytes) { buffer in
            Result { () throws(JSONError) in try routed(buffer: buffer, remembering: &memory) }
        }.get()
    }

    /// ``routed(utf8:remembering:)`` over the bytes in `buffer`. Not generic: `CastMediaChannel` calls it
    /// for every status, and the generic form, compiled once for any collection, looked up type metadata
    /// at run time on each call (some two thousand instructions).
    package static func routed(
        buffer: UnsafeBufferPointer<UInt8>, remembering memory: inout MediaStatusMemory
    ) throws(JSONError) -> (type: String?, message: MediaStatusMessage) {
        let earlier = memory
        let (type, message, later) = try JSONPullReader.read(buffer: buffer) { reader throws(JSONError) in
            var repeated = RepeatedMedia(memory: earlier)
            let (type, message) = try read(from: &reader, repeated: &repeated)
            return (type, message, repeated.memory(reading: reader))
        }.get()
        memory = later
        return (type, message)
    }

    private enum Member: Int, CaseIterable { case requestId, status, type, responseType }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    init(reading reader: inout JSONPullReader) throws(JSONError) {
        self = try Self.read(from: &reader).message
    }

    private static func read(from reader: inout JSONPullReader) throws(JSONError) -> (type: String?, message: MediaStatusMessage) {
        var repeated = RepeatedMedia()
        return try read(from: &reader, repeated: &repeated)
    }

    private static func read(
        from reader: inout JSONPullReader, repeated: inout RepeatedMedia
    ) throws(JSONError) -> (type: String?, message: MediaStatusMessage) {
        guard try reader.peek() == .object else {
            let value = try reader.readValue()
            throw JSONError(code: .typeMismatch, message: "MediaStatusMessage must be a JSON object, not \(value.shortDescription)")
        }
        var requestId: Int?
        var status: [MediaStatus] = []
        var type: String?
        var responseType: String?
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch Self.members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .requestId: requestId = try reader.lenientInt()
            case .status:
                status = try MediaStatus.readArray(from: &reader, repeated: &repeated)
            case .type:
                let value = try reader.lenientString()
                if type == nil { type = value }
            case .responseType: responseType = try reader.lenientString() ?? responseType
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        return (type ?? responseType, MediaStatusMessage(requestId: requestId, status: status))
    }
}

extension JSONPullReader {
    /// The next value read as a subtree by `make`; `nil` for `null` or when `make` throws (the tree
    /// decoders' `model` rule).
    mutating func model<Model>(_ make: (JSONValue) throws(JSONError) -> Model) throws(JSONError) -> Model? {
        guard let value = try optionalValue() else { return nil }
        do {
            return try make(value)
        } catch {
            return nil
        }
    }

    /// The next value when it is an array whose every element `element` reads; all or nothing (the
    /// tree decoders' `models`). ``JSONPullReader/lenientArray(_:)``, specialized in this module.
    @inline(__always)
    mutating func allOrNothing<Element>(
        _ element: (inout JSONPullReader) throws(JSONError) -> Element?
    ) throws(JSONError) -> [Element]? {
        guard try peek() == .array else {
            try skipValue()
            return nil
        }
        var result: [Element] = []
        var complete = true
        var more = try beginArray()
        // One allocation for the short arrays statuses carry (tracks, a queue window), not three.
        if more { result.reserveCapacity(4) }
        while more {
            if let value = try element(&self) {
                if complete { result.append(value) }
            } else {
                complete = false
            }
            more = try endElement()
        }
        return complete ? result : nil
    }

    /// The elements of the next value that `element` reads, the others skipped (the tree decoders'
    /// `readableModels`), in this module so that it is specialized for each element reader.
    @inline(__always)
    mutating func readable<Element>(
        _ element: (inout JSONPullReader) throws(JSONError) -> Element?
    ) throws(JSONError) -> [Element] {
        guard try peek() == .array else {
            try skipValue()
            return []
        }
        var result: [Element] = []
        var more = try beginArray()
        if more { result.reserveCapacity(4) }
        while more {
            if let value = try element(&self) { result.append(value) }
            more = try endElement()
        }
        return result
    }

    /// The next value as a string enumeration; `nil` when it is not a string.
    mutating func enumeration<Value: CastStringEnumeration>(_ type: Value.Type = Value.self) throws(JSONError) -> Value? {
        try lenientString().map(Value.init(rawValue:))
    }
}

extension MediaStatus {
    private enum Member: Int, CaseIterable {
        case mediaSessionId, playerState, idleReason, currentTime, playbackRate, supportedMediaCommands, volume,
            activeTrackIds, media, currentItemId, loadingItemId, preloadedItemId, items, repeatMode, queueData,
            customData, breakStatus, liveSeekableRange, videoInfo, extendedStatus
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The readable elements of the next value as statuses, the others skipped (the tree decoders'
    /// `readableModels`), each read in place in the array.
    static func readArray(from reader: inout JSONPullReader, repeated: inout RepeatedMedia) throws(JSONError) -> [MediaStatus] {
        guard try reader.peek() == .array else {
            try reader.skipValue()
            return []
        }
        var statuses: [MediaStatus] = []
        var more = try reader.beginArray()
        while more {
            if try reader.peek() != .object {
                try reader.skipValue()
            } else {
                statuses.append(blank)
                if try !readMembers(from: &reader, repeated: &repeated, into: &statuses[statuses.count - 1]) {
                    statuses.removeLast()
                }
            }
            more = try reader.endElement()
        }
        return statuses
    }

    /// What a status object without members reads as (before its required `mediaSessionId`).
    static let blank = MediaStatus(mediaSessionId: 0, playerState: .unknown)

    /// The members of a status object (next) into `status`, changed in place; `false` without an integer
    /// `mediaSessionId`. The models are large (a `MediaInformation` is about 400 bytes): one built up in a
    /// local variable of the reading function was copied whole several times; through `inout` it is not.
    @inline(never)
    static func readMembers(
        from reader: inout JSONPullReader, repeated: inout RepeatedMedia, into status: inout MediaStatus
    ) throws(JSONError) -> Bool {
        var mediaSessionId: Int?
        var playerState: PlayerState?
        var currentTime: Double?
        var playbackRate: Double?
        var supportedMediaCommands: Int?
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .mediaSessionId: mediaSessionId = try reader.lenientInt()
            case .playerState: playerState = try reader.enumeration()
            case .idleReason: status.idleReason = try reader.enumeration()
            case .currentTime: currentTime = try reader.lenientDouble()
            case .playbackRate: playbackRate = try reader.lenientDouble()
            case .supportedMediaCommands: supportedMediaCommands = try reader.lenientInt()
            case .volume: status.volume = try MediaVolume.read(from: &reader)
            case .activeTrackIds: status.activeTrackIds = try reader.lenientInts()
            case .media: try MediaInformation.read(from: &reader, into: &status.mediaBox, repeated: &repeated)
            case .currentItemId: status.currentItemId = try reader.lenientInt()
            case .loadingItemId: status.loadingItemId = try reader.lenientInt()
            case .preloadedItemId: status.preloadedItemId = try reader.lenientInt()
            case .items:
                status.items = try QueueItem.readArray(from: &reader, repeated: &repeated)
            case .repeatMode: status.repeatMode = try reader.enumeration()
            case .queueData: status.queueData = try QueueData.read(from: &reader, repeated: &repeated)
            case .customData: status.customData = try reader.optionalValue().map(CastCustomData.init)
            case .breakStatus: status.breakStatus = try reader.optionalValue()
            case .liveSeekableRange: status.liveSeekableRange = try reader.model(LiveSeekableRange.init(json:))
            case .videoInfo: status.videoInfo = try VideoInformation.read(from: &reader)
            case .extendedStatus: status.extendedStatus = try reader.model(ExtendedMediaStatus.init(json:))
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        guard let mediaSessionId else { return false }
        status.mediaSessionId = mediaSessionId
        status.playerState = playerState ?? .unknown
        status.currentTime = currentTime ?? 0
        status.playbackRate = playbackRate ?? 1
        status.supportedMediaCommands = supportedMediaCommands.map(SupportedMediaCommands.init(rawValue:)) ?? []
        return true
    }
}

extension MediaInformation {
    private enum Member: Int, CaseIterable {
        case contentId, contentUrl, contentType, streamType, duration, metadata, tracks, textTrackStyle, customData,
            hlsSegmentFormat, hlsVideoSegmentFormat, entity, mediaCategory, startAbsoluteTime
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as media information, or one read before when its bytes are the same (receivers
    /// send the current item's `media` twice in a MEDIA_STATUS, in the status and in its `items`, and
    /// again in every status of the session). The result is `media`'s new box, shared with the statuses and
    /// items that repeat it (`nil` when the value is not an object).
    static func read(
        from reader: inout JSONPullReader, into media: inout MediaBox?, repeated: inout RepeatedMedia
    ) throws(JSONError) {
        if repeated.skipRepeat(in: &reader, into: &media) { return }
        guard try reader.peek() == .object else {
            try reader.skipValue()
            media = nil
            return
        }
        let mark = reader.mark()
        var read = blank
        try readMembers(from: &reader, into: &read)
        let box = MediaBox(read)
        media = box
        repeated.add(span: reader.span(from: mark), media: box)
    }

    /// What a `media` object without members reads as, the start of every read (into a local, then boxed).
    static let blank = MediaInformation(contentId: "", contentType: "")

    /// The members of a `media` object (next) into `media`, changed in place (see
    /// ``MediaStatus/readMembers(from:repeated:into:)``).
    @inline(never)
    static func readMembers(from reader: inout JSONPullReader, into media: inout MediaInformation) throws(JSONError) {
        var contentId: String?
        var contentType: String?
        var streamType: StreamType?
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .contentId: contentId = try reader.lenientString()
            case .contentUrl: media.contentUrl = try reader.lenientString()
            case .contentType: contentType = try reader.lenientString()
            case .streamType: streamType = try reader.enumeration()
            case .duration: media.duration = try reader.lenientDouble()
            case .metadata: media.metadata = try CastMetadata.read(from: &reader)
            case .tracks: media.tracks = try reader.allOrNothing { reader throws(JSONError) in try MediaTrack.read(from: &reader) }
            case .textTrackStyle: media.textTrackStyle = try TextTrackStyle.read(from: &reader)
            case .customData: media.customData = try reader.optionalValue().map(CastCustomData.init)
            case .hlsSegmentFormat: media.hlsSegmentFormat = try reader.enumeration()
            case .hlsVideoSegmentFormat: media.hlsVideoSegmentFormat = try reader.enumeration()
            case .entity: media.entity = try reader.lenientString()
            case .mediaCategory: media.mediaCategory = try reader.enumeration()
            case .startAbsoluteTime: media.startAbsoluteTime = try reader.lenientDouble()
            case nil:
                let name = key.string
                media.additionalFields[name] = try reader.readValue()
            }
            more = try reader.endMember()
        }
        media.contentId = contentId ?? ""
        media.contentType = contentType ?? ""
        media.streamType = streamType ?? .buffered
    }
}

extension MediaTrack {
    private enum Member: Int, CaseIterable {
        case trackId, type, subtype, trackContentId, trackContentType, name, language, customData, isInband, roles
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as a track; `nil` (value consumed) when it is not an object or has no integer
    /// `trackId`, as ``init(json:)`` throws.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> MediaTrack? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return nil
        }
        var trackId: Int?
        var type: Kind?
        var track = MediaTrack(trackId: 0, type: .text)
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .trackId: trackId = try reader.lenientInt()
            case .type: type = try reader.enumeration()
            case .subtype: track.subtype = try reader.enumeration()
            case .trackContentId: track.contentId = try reader.lenientString()
            case .trackContentType: track.contentType = try reader.lenientString()
            case .name: track.name = try reader.lenientString()
            case .language: track.language = try reader.lenientString()
            case .customData: track.customData = try reader.optionalValue().map(CastCustomData.init)
            case .isInband: track.isInband = try reader.lenientBool()
            case .roles: track.roles = try reader.lenientStrings()
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        guard let trackId else { return nil }
        track.trackId = trackId
        track.type = type ?? .text
        return track
    }
}

extension QueueItem {
    private enum Member: Int, CaseIterable {
        case itemId, media, autoplay, startTime, playbackDuration, preloadTime, activeTrackIds, customData, orderId
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as an array of items, all or nothing (the tree decoders' `models`), each item read in
    /// place in the array (see ``MediaStatus/readMembers(from:repeated:into:)``).
    static func readArray(from reader: inout JSONPullReader, repeated: inout RepeatedMedia) throws(JSONError) -> [QueueItem]? {
        guard try reader.peek() == .array else {
            try reader.skipValue()
            return nil
        }
        var items: [QueueItem] = []
        var complete = true
        var more = try reader.beginArray()
        if more { items.reserveCapacity(4) }
        while more {
            if try reader.peek() != .object {
                try reader.skipValue()
                complete = false
            } else if complete {
                items.append(blank)
                try readMembers(from: &reader, repeated: &repeated, into: &items[items.count - 1])
            } else {
                var item = blank
                try readMembers(from: &reader, repeated: &repeated, into: &item)
            }
            more = try reader.endElement()
        }
        return complete ? items : nil
    }

    /// What an item object without members reads as.
    static let blank = QueueItem(media: nil, autoplay: nil)

    /// The members of an item object (next) into `item`, changed in place (see
    /// ``MediaStatus/readMembers(from:repeated:into:)``).
    @inline(never)
    static func readMembers(
        from reader: inout JSONPullReader, repeated: inout RepeatedMedia, into item: inout QueueItem
    ) throws(JSONError) {
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .itemId: item.itemId = try reader.lenientInt()
            case .media: try MediaInformation.read(from: &reader, into: &item.mediaBox, repeated: &repeated)
            case .autoplay: item.autoplay = try reader.lenientBool()
            case .startTime: item.startTime = try reader.lenientDouble()
            case .playbackDuration: item.playbackDuration = try reader.lenientDouble()
            case .preloadTime: item.preloadTime = try reader.lenientDouble()
            case .activeTrackIds: item.activeTrackIds = try reader.lenientInts()
            case .customData: item.customData = try reader.optionalValue().map(CastCustomData.init)
            case .orderId: item.orderId = try reader.lenientInt()
            case nil:
                let name = key.string
                item.additionalFields[name] = try reader.readValue()
            }
            more = try reader.endMember()
        }
    }
}

/// The `media` objects already read, for ``MediaInformation/read(from:into:repeated:)``: those read whole
/// from this message (their spans in its bytes) and those a ``MediaStatusMemory`` kept from earlier
/// messages, each with its model.
struct RepeatedMedia {
    /// The latest read whole from this message, and its model.
    private var lastSpan: JSONPullReader.Span?
    private var lastMedia: MediaBox?
    /// Those read whole from this message before the latest, oldest first (a queue window's other items),
    /// kept only when reading with a memory; at most ``MediaStatusMemory/capacity`` with the latest.
    private var older: [(span: JSONPullReader.Span, media: MediaBox)] = []
    /// From earlier messages.
    private let earlier: [MediaStatusMemory.Entry]
    /// Which of ``earlier`` this message repeated (bit `i` for entry `i`).
    private var repeatedEarlier: UInt8 = 0
    /// Whether the media read are remembered beyond the latest (reading with a ``MediaStatusMemory``).
    private let remembers: Bool

    /// Without a memory only the latest media read is compared (the status's `media` and the current
    /// item's repeat each other, and share its box).
    init() {
        earlier = []
        remembers = false
    }

    init(memory: MediaStatusMemory) {
        earlier = memory.entries
        remembers = true
    }

    /// When the next value's bytes are those of a `media` read before, moves the reader past them, sets
    /// `media` to that model and returns `true`; otherwise changes nothing and returns `false`.
    @inline(__always)
    mutating func skipRepeat(in reader: inout JSONPullReader, into media: inout MediaBox?) -> Bool {
        if let span = lastSpan, reader.skipRepeat(of: span) {
            media = lastMedia
            return true
        }
        guard remembers, let box = skipRemembered(in: &reader) else { return false }
        media = box
        return true
    }

    /// The box of an older `media` of this message, or of one from an earlier message, whose bytes the next
    /// value repeats (the reader then moves past them).
    private mutating func skipRemembered(in reader: inout JSONPullReader) -> MediaBox? {
        for (span, box) in older.reversed() where reader.skipRepeat(of: span) { return box }
        for (index, entry) in earlier.enumerated() {
            if reader.skipRepeat(of: entry.value) {
                repeatedEarlier |= 1 << index
                return entry.media
            }
        }
        return nil
    }

    /// Records a `media` read whole from this message.
    @inline(__always)
    mutating func add(span: JSONPullReader.Span, media: MediaBox) {
        if remembers, lastSpan != nil { keepLatest() }
        lastSpan = span
        lastMedia = media
    }

    /// Moves the latest media read (its box) into ``older``.
    private mutating func keepLatest() {
        guard let span = lastSpan, let media = lastMedia else { return }
        if older.count == MediaStatusMemory.capacity - 1 { older.removeFirst() }
        older.append((span, media))
    }

    /// What to remember after this message (read by `reader`): the media it carried, those read whole
    /// copied out of its bytes, then the earlier ones it did not repeat, up to the capacity.
    func memory(reading reader: JSONPullReader) -> MediaStatusMemory {
        guard lastSpan != nil || Int(repeatedEarlier) != (1 << earlier.count) - 1 else {
            return MediaStatusMemory(entries: earlier)
        }
        var entries: [MediaStatusMemory.Entry] = []
        entries.reserveCapacity(MediaStatusMemory.capacity)
        for (index, entry) in earlier.enumerated() where repeatedEarlier & (1 << index) != 0 { entries.append(entry) }
        func keep(_ span: JSONPullReader.Span, _ box: MediaBox) {
            guard entries.count < MediaStatusMemory.capacity, let value = reader.remember(span) else { return }
            entries.append(MediaStatusMemory.Entry(value: value, media: box))
        }
        if let lastSpan, let lastMedia { keep(lastSpan, lastMedia) }
        for (span, box) in older.reversed() { keep(span, box) }
        for (index, entry) in earlier.enumerated() where repeatedEarlier & (1 << index) == 0 && entries.count < MediaStatusMemory.capacity {
            entries.append(entry)
        }
        return MediaStatusMemory(entries: entries)
    }
}

/// The `media` objects of a stream's latest MEDIA_STATUS messages, with their bytes and models, so the
/// next message that repeats one (receivers repeat the current media in every status) reuses its model
/// instead of reading it again (``MediaStatusMessage/routed(utf8:remembering:)``).
package struct MediaStatusMemory: Sendable {
    /// One `media` object: its bytes as received (and how deep it nests), and what it read as.
    struct Entry: Sendable {
        var value: JSONPullReader.RememberedValue
        var media: MediaBox
    }

    /// The most media objects kept: a queue window's three items and one more.
    static let capacity = 4

    /// Most recently received first.
    var entries: [Entry]

    /// An empty memory.
    package init() { entries = [] }

    init(entries: [Entry]) { self.entries = entries }

    /// How many media objects are kept.
    package var count: Int { entries.count }
}

/// A member read with a strict rule (`JSONObjectReader`'s `strict…`): absent (missing or `null`), a value,
/// or a value of the wrong type, which makes `init(json:)` throw and so the whole model absent.
enum StrictMember<Value> {
    case absent
    case value(Value)
    case wrongType

    /// The value; `nil` when absent.
    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Whether the member had the wrong type.
    var isWrong: Bool {
        if case .wrongType = self { return true }
        return false
    }
}

extension JSONPullReader {
    /// The next value read by `make` when its token is `token`; `null` reads as absent, another token
    /// (consumed) or a `nil` from `make` as the wrong type.
    @inline(__always)
    mutating func strict<Value>(
        _ token: Token, _ make: (inout JSONPullReader) throws(JSONError) -> Value?
    ) throws(JSONError) -> StrictMember<Value> {
        let next = try peek()
        if next == token, let value = try make(&self) { return .value(value) }
        if next != token { try skipValue() }
        return next == .null ? .absent : .wrongType
    }

    /// A number (`strictDouble`).
    mutating func strictDouble() throws(JSONError) -> StrictMember<Double> {
        try strict(.number) { reader throws(JSONError) in try reader.readNumber() }
    }

    /// A number that is exactly an `Int` (`strictInt`); another number is of the wrong type.
    mutating func strictInt() throws(JSONError) -> StrictMember<Int> {
        try strict(.number) { reader throws(JSONError) in Int(exactly: try reader.readNumber()) }
    }

    /// `true` or `false` (`strictBool`).
    mutating func strictBool() throws(JSONError) -> StrictMember<Bool> {
        try strict(.bool) { reader throws(JSONError) in try reader.lenientBool() }
    }

    /// A string (`strictString`).
    mutating func strictString() throws(JSONError) -> StrictMember<String> {
        try strict(.string) { reader throws(JSONError) in try reader.readString() }
    }

    /// The next value when it is an object, else consumed: `false`, and the caller reads it as absent.
    @inline(__always)
    mutating func isObject() throws(JSONError) -> Bool {
        guard try peek() == .object else {
            try skipValue()
            return false
        }
        return true
    }
}

extension TextTrackStyle {
    private enum Member: Int, CaseIterable {
        case foregroundColor, backgroundColor, edgeType, edgeColor, fontScale, fontFamily, fontGenericFamily, fontStyle,
            windowColor, windowRoundedCornerRadius, windowType, customData
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as a style, with ``init(json:)``'s rules; `nil` (value consumed) when not an object.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> TextTrackStyle? {
        guard try reader.isObject() else { return nil }
        var style = TextTrackStyle()
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .foregroundColor: style.foregroundColor = try reader.color()
            case .backgroundColor: style.backgroundColor = try reader.color()
            case .edgeType: style.edgeType = try reader.enumeration()
            case .edgeColor: style.edgeColor = try reader.color()
            case .fontScale: style.fontScale = try reader.lenientDouble()
            case .fontFamily: style.fontFamily = try reader.lenientString()
            case .fontGenericFamily: style.fontGenericFamily = try reader.enumeration()
            case .fontStyle: style.fontStyle = try reader.enumeration()
            case .windowColor: style.windowColor = try reader.color()
            case .windowRoundedCornerRadius: style.windowRoundedCornerRadius = try reader.lenientDouble()
            case .windowType: style.windowType = try reader.enumeration()
            case .customData: style.customData = try reader.optionalValue().map(CastCustomData.init)
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        return style
    }
}

extension JSONPullReader {
    /// The next value as a CSS colour; `nil` when it is not a string or not a colour.
    fileprivate mutating func color() throws(JSONError) -> CastColor? {
        try lenientString().flatMap(CastColor.init(cssString:))
    }
}

extension MediaVolume {
    private enum Member: Int, CaseIterable { case level, muted }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as a volume, with ``init(json:)``'s strict rules; `nil` (value consumed) when not an
    /// object or when a member has the wrong type.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> MediaVolume? {
        guard try reader.isObject() else { return nil }
        var level = StrictMember<Double>.absent
        var muted = StrictMember<Bool>.absent
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .level: level = try reader.strictDouble()
            case .muted: muted = try reader.strictBool()
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        guard !level.isWrong, !muted.isWrong else { return nil }
        return MediaVolume(level: level.value, muted: muted.value)
    }
}

extension VideoInformation {
    private enum Member: Int, CaseIterable { case width, height, hdrType }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as video information, with ``init(json:)``'s strict rules; `nil` (value consumed)
    /// when not an object or when a member has the wrong type.
    static func read(from reader: inout JSONPullReader) throws(JSONError) -> VideoInformation? {
        guard try reader.isObject() else { return nil }
        var width = StrictMember<Int>.absent
        var height = StrictMember<Int>.absent
        var hdrType = StrictMember<String>.absent
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .width: width = try reader.strictInt()
            case .height: height = try reader.strictInt()
            case .hdrType: hdrType = try reader.strictString()
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        guard !width.isWrong, !height.isWrong, !hdrType.isWrong else { return nil }
        return VideoInformation(width: width.value, height: height.value, hdrType: hdrType.value.map(HDRType.init(rawValue:)))
    }
}

extension QueueData {
    private enum Member: Int, CaseIterable {
        case id, name, description, entity, queueType, repeatMode, shuffle, items, startIndex, startTime, containerMetadata
    }
    private static let members = JSONKeySet(Member.allCases.map { "\($0)" })

    /// The next value as queue data, with ``init(json:)``'s rules; `nil` (value consumed) when not an object.
    static func read(from reader: inout JSONPullReader, repeated: inout RepeatedMedia) throws(JSONError) -> QueueData? {
        guard try reader.isObject() else { return nil }
        var data = QueueData()
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            switch members.index(of: key).flatMap(Member.init(rawValue:)) {
            case .id: data.id = try reader.lenientString()
            case .name: data.name = try reader.lenientString()
            case .description: data.description = try reader.lenientString()
            case .entity: data.entity = try reader.lenientString()
            case .queueType: data.queueType = try reader.enumeration()
            case .repeatMode: data.repeatMode = try reader.enumeration()
            case .shuffle: data.shuffle = try reader.lenientBool()
            case .items:
                data.items = try QueueItem.readArray(from: &reader, repeated: &repeated)
            case .startIndex: data.startIndex = try reader.lenientInt()
            case .startTime: data.startTime = try reader.lenientDouble()
            case .containerMetadata: data.containerMetadata = try reader.optionalValue()
            case nil: try reader.skipValue()
            }
            more = try reader.endMember()
        }
        return data
    }
}

extension QueueItem {
    private enum ItemsMember: Int, CaseIterable { case items }
    private static let itemsMembers = JSONKeySet(ItemsMember.allCases.map { "\($0)" })

    /// Reads the `items` of a QUEUE_ITEMS message from its JSON text (UTF-8), with the result of
    /// `JSONValue(parsing: bytes)["items"]?.arrayValue?.compactMap { try? QueueItem(json: $0) }` but
    /// without building the tree: the last `items` member decides, elements that are not objects are
    /// skipped.
    /// - Returns: `nil` when the message has no `items` array.
    /// - Throws: `JSONError` `malformed` when the bytes are not JSON.
    package static func queueItems(utf8 bytes: some Collection<UInt8>) throws(JSONError) -> [QueueItem]? {
        try JSONPullReader.withContiguousBytes(of: bytes) { buffer in queueItems(buffer: buffer) }.get()
    }

    private static func queueItems(buffer: UnsafeBufferPointer<UInt8>) -> Result<[QueueItem]?, JSONError> {
        JSONPullReader.read(buffer: buffer) { reader throws(JSONError) -> [QueueItem]? in
            guard try reader.peek() == .object else {
                try reader.skipValue()
                return nil
            }
            var items: [QueueItem]?
            var repeated = RepeatedMedia()
            var more = try reader.beginObject()
            while more {
                let key = try reader.readKey()
                switch itemsMembers.index(of: key).flatMap(ItemsMember.init(rawValue:)) {
                case .items:
                    if try reader.peek() == .array {
                        items = try reader.readable { reader throws(JSONError) -> QueueItem? in
                            guard try reader.peek() == .object else {
                                try reader.skipValue()
                                return nil
                            }
                            var item = blank
                            try readMembers(from: &reader, repeated: &repeated, into: &item)
                            return item
                        }
                    } else {
                        try reader.skipValue()
                        items = nil
                    }
                case nil: try reader.skipValue()
                }
                more = try reader.endMember()
            }
            return items
        }
    }
}
