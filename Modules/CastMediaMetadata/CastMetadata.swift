@_spi(JSONReading) public import CastJSON
public import Foundation

/// What is being played: a title, artwork and the fields of one metadata type (`GCKMediaMetadata`).
///
/// ```swift
/// let image = CastImage(url: URL(string: "https://example.com/poster.jpg"))
/// var metadata = CastMetadata(title: "Video", metadataType: .movie, image: image)
/// metadata.studio = "Blender Foundation"
/// ```
///
/// The wire form is the Cast `metadata` object: `metadataType` (an integer) plus named fields. Every field
/// a receiver sends is kept, known or not, and sent back unchanged; the typed properties read and write the
/// fields of the reference (``title``, ``seriesTitle``, ``artist``, …). Dates are ISO 8601 strings, as on
/// the wire.
public struct CastMetadata: Sendable {
    /// The kind of content; unknown values are kept.
    public var metadataType: CastMetadataType
    /// The fields: a dictionary, or (metadata read from a MEDIA_STATUS's bytes) the object's JSON text,
    /// read when a field is asked for and turned into a dictionary on the first change.
    var storage: Storage

    /// Where the fields are kept.
    enum Storage: Sendable {
        /// Every field except `metadataType`.
        case members([String: JSONValue])
        /// The whole `metadata` object as received (valid JSON; its `metadataType` member is not a field).
        case text(JSONObjectText)
    }

    /// Every field except `metadataType`, as JSON.
    public var fields: [String: JSONValue] {
        switch storage {
        case .members(let members): return members
        case .text(let text):
            var members = text.members()
            members["metadataType"] = nil
            return members
        }
    }

    /// Creates metadata with a title and any number of images.
    public init(title: String? = nil, metadataType: CastMetadataType = .generic, images: [CastImage] = []) {
        self.metadataType = metadataType
        self.storage = .members([:])
        self.title = title
        self.images = images
    }

    /// Creates metadata with a title and at most one image.
    public init(title: String? = nil, metadataType: CastMetadataType = .generic, image: CastImage?) {
        self.init(title: title, metadataType: metadataType, images: image.map { [$0] } ?? [])
    }

    /// Creates metadata from a type and raw fields (a `metadataType` member among them is ignored).
    public init(metadataType: CastMetadataType, fields: [String: JSONValue]) {
        self.metadataType = metadataType
        var fields = fields
        fields["metadataType"] = nil
        self.storage = .members(fields)
    }

    /// Any field by its wire name; setting `nil` removes it. `metadataType` is the ``metadataType`` property.
    public subscript(field name: String) -> JSONValue? {
        get { name == "metadataType" ? .number(Double(metadataType.rawValue)) : field(name) }
        set {
            if name == "metadataType" {
                if let value = newValue?.intValue { metadataType = CastMetadataType(rawValue: value) }
            } else {
                setField(name, newValue)
            }
        }
    }

    /// The whole `metadata` object, as sent on the wire.
    public var json: JSONValue {
        var members = fields
        members["metadataType"] = .number(Double(metadataType.rawValue))
        return .object(members)
    }

    /// Reads a `metadata` object; a missing `metadataType` means ``CastMetadataType/generic``.
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not an object or `metadataType` is not an integer.
    public init(json: JSONValue) throws(JSONError) {
        guard var members = json.objectValue else {
            throw JSONError(code: .typeMismatch, message: "Metadata must be a JSON object, not \(json.shortDescription)")
        }
        let type = members.removeValue(forKey: "metadataType")
        switch type {
        case nil, .null?:
            metadataType = .generic
        case let value?:
            guard let raw = value.intValue else {
                throw JSONError(code: .typeMismatch, message: "metadataType must be an integer, not \(value.shortDescription)")
            }
            metadataType = CastMetadataType(rawValue: raw)
        }
        storage = .members(members)
    }

    /// The field `name` (not `metadataType`); `nil` when missing.
    func field(_ name: String) -> JSONValue? {
        switch storage {
        case .members(let members): return members[name]
        case .text(let text): return text.value(of: name)
        }
    }

    /// Sets or (`nil`) removes the field `name` (not `metadataType`).
    mutating func setField(_ name: String, _ value: JSONValue?) {
        var members = fields
        storage = .members([:])  // the dictionary is then uniquely referenced and changed in place
        members[name] = value
        storage = .members(members)
    }
}

extension CastMetadata: Hashable {
    /// Whether both have the same type and the same fields (however they are kept).
    public static func == (lhs: CastMetadata, rhs: CastMetadata) -> Bool {
        guard lhs.metadataType == rhs.metadataType else { return false }
        if case .text(let left) = lhs.storage, case .text(let right) = rhs.storage, left == right { return true }
        return lhs.fields == rhs.fields
    }

    /// Hashes the type and the fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(metadataType)
        hasher.combine(fields)
    }
}

extension CastMetadata {
    /// The next value as metadata, with ``init(json:)``'s rules, reading only as far as the rules need: the
    /// object is checked and its last `metadataType` read, and the rest is kept as text until a field is asked
    /// for; `nil` (value consumed) for `null`, a value that is not an object, or a `metadataType` that is not
    /// an integer.
    package static func read(from reader: inout JSONPullReader) throws(JSONError) -> CastMetadata? {
        guard try reader.peek() == .object else {
            try reader.skipValue()
            return nil
        }
        let mark = reader.mark()
        var type: JSONValue?
        var more = try reader.beginObject()
        while more {
            let key = try reader.readKey()
            if key == "metadataType" {
                type = try reader.readValue()
            } else {
                try reader.skipValue()
            }
            more = try reader.endMember()
        }
        let span = reader.span(from: mark)
        let metadataType: CastMetadataType
        switch type {
        case nil, .null?: metadataType = .generic
        case let value?:
            guard let raw = value.intValue else { return nil }
            metadataType = CastMetadataType(rawValue: raw)
        }
        return CastMetadata(metadataType: metadataType, storage: .text(JSONObjectText(checked: reader.bytes(of: span))))
    }

    private init(metadataType: CastMetadataType, storage: Storage) {
        self.metadataType = metadataType
        self.storage = storage
    }
}

extension CastMetadata: Codable {
    /// Decodes the `metadata` object, keeping every field.
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes the `metadata` object.
    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

// MARK: - Typed fields

extension CastMetadata {
    func string(_ key: String, fallback: String? = nil) -> String? {
        field(key)?.stringValue ?? fallback.flatMap { field($0)?.stringValue }
    }

    func int(_ key: String, fallback: String? = nil) -> Int? {
        field(key)?.intValue ?? fallback.flatMap { field($0)?.intValue }
    }

    func double(_ key: String) -> Double? {
        field(key)?.doubleValue
    }

    mutating func set(_ key: String, _ value: String?) { setField(key, value.map(JSONValue.string)) }
    mutating func set(_ key: String, _ value: Int?) { setField(key, value.map { .number(Double($0)) }) }
    mutating func set(_ key: String, _ value: Double?) { setField(key, value.map(JSONValue.number)) }

    /// The artwork, in order (`images`). Entries that are not valid images are skipped when reading.
    public var images: [CastImage] {
        get {
            (field("images")?.arrayValue ?? []).compactMap { try? CastImage(json: $0) }
        }
        set {
            setField("images", newValue.isEmpty && field("images") == nil
                ? nil : .array(newValue.map { (try? JSONValue(encoding: $0)) ?? .null }))
        }
    }

    /// The title (`title`; for music the deprecated `songName`, for TV the deprecated `episodeTitle`, are read too).
    public var title: String? {
        get { string("title") ?? string("songName") ?? string("episodeTitle") }
        set { set("title", newValue) }
    }

    /// The subtitle (`subtitle`): generic, movie and audiobook chapter.
    public var subtitle: String? {
        get { string("subtitle") }
        set { set("subtitle", newValue) }
    }

    /// The series title of a TV show (`seriesTitle`).
    public var seriesTitle: String? {
        get { string("seriesTitle") }
        set { set("seriesTitle", newValue) }
    }

    /// The season number of a TV show (`season`, or the deprecated `seasonNumber`).
    public var season: Int? {
        get { int("season", fallback: "seasonNumber") }
        set { set("season", newValue) }
    }

    /// The episode number of a TV show (`episode`, or the deprecated `episodeNumber`).
    public var episode: Int? {
        get { int("episode", fallback: "episodeNumber") }
        set { set("episode", newValue) }
    }

    /// The first air date of a TV show, ISO 8601 (`originalAirdate`).
    public var originalAirdate: String? {
        get { string("originalAirdate") }
        set { set("originalAirdate", newValue) }
    }

    /// The studio of a movie (`studio`).
    public var studio: String? {
        get { string("studio") }
        set { set("studio", newValue) }
    }

    /// The artist of a music track or photo (`artist`, or the deprecated `artistName`).
    public var artist: String? {
        get { string("artist", fallback: "artistName") }
        set { set("artist", newValue) }
    }

    /// The album of a music track (`albumName`).
    public var albumName: String? {
        get { string("albumName") }
        set { set("albumName", newValue) }
    }

    /// The album artist of a music track (`albumArtist`).
    public var albumArtist: String? {
        get { string("albumArtist") }
        set { set("albumArtist", newValue) }
    }

    /// The composer of a music track (`composer`).
    public var composer: String? {
        get { string("composer") }
        set { set("composer", newValue) }
    }

    /// The track number of a music track (`trackNumber`).
    public var trackNumber: Int? {
        get { int("trackNumber") }
        set { set("trackNumber", newValue) }
    }

    /// The disc number of a music track (`discNumber`).
    public var discNumber: Int? {
        get { int("discNumber") }
        set { set("discNumber", newValue) }
    }

    /// The release date, ISO 8601 (`releaseDate`): generic, movie, music track.
    public var releaseDate: String? {
        get { string("releaseDate") }
        set { set("releaseDate", newValue) }
    }

    /// Where a photo was taken (`location`).
    public var location: String? {
        get { string("location") }
        set { set("location", newValue) }
    }

    /// The latitude of a photo (`latitude`).
    public var latitude: Double? {
        get { double("latitude") }
        set { set("latitude", newValue) }
    }

    /// The longitude of a photo (`longitude`).
    public var longitude: Double? {
        get { double("longitude") }
        set { set("longitude", newValue) }
    }

    /// The width of a photo in pixels (`width`).
    public var width: Int? {
        get { int("width") }
        set { set("width", newValue) }
    }

    /// The height of a photo in pixels (`height`).
    public var height: Int? {
        get { int("height") }
        set { set("height", newValue) }
    }

    /// When a photo was taken, ISO 8601 (`creationDateTime`).
    public var creationDateTime: String? {
        get { string("creationDateTime") }
        set { set("creationDateTime", newValue) }
    }

    /// The book of an audiobook chapter (`bookTitle`).
    public var bookTitle: String? {
        get { string("bookTitle") }
        set { set("bookTitle", newValue) }
    }

    /// The chapter number of an audiobook chapter (`chapterNumber`).
    public var chapterNumber: Int? {
        get { int("chapterNumber") }
        set { set("chapterNumber", newValue) }
    }

    /// The chapter title of an audiobook chapter (`chapterTitle`).
    public var chapterTitle: String? {
        get { string("chapterTitle") }
        set { set("chapterTitle", newValue) }
    }

    /// A poster image URL some receivers use (`posterUrl`).
    public var posterUrl: URL? {
        get { string("posterUrl").flatMap(URL.init(string:)) }
        set { set("posterUrl", newValue?.absoluteString) }
    }

    /// The queue item this metadata belongs to, in section metadata (`queueItemId`).
    public var queueItemId: Int? {
        get { int("queueItemId") }
        set { set("queueItemId", newValue) }
    }

    /// The duration of a section, in seconds (`sectionDuration`).
    public var sectionDuration: Double? {
        get { double("sectionDuration") }
        set { set("sectionDuration", newValue) }
    }

    /// Where a section starts in its media, in seconds (`sectionStartTimeInMedia`).
    public var sectionStartTimeInMedia: Double? {
        get { double("sectionStartTimeInMedia") }
        set { set("sectionStartTimeInMedia", newValue) }
    }

    /// Where a section starts in its container, in seconds (`sectionStartTimeInContainer`).
    public var sectionStartTimeInContainer: Double? {
        get { double("sectionStartTimeInContainer") }
        set { set("sectionStartTimeInContainer", newValue) }
    }

    /// When a section starts, in seconds since the epoch (`sectionStartAbsoluteTime`).
    public var sectionStartAbsoluteTime: Double? {
        get { double("sectionStartAbsoluteTime") }
        set { set("sectionStartAbsoluteTime", newValue) }
    }
}
