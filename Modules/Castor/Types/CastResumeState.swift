/// A snapshot that hands playback over between a local player and a receiver, or between receivers:
/// the assets, where to start, and a language per media characteristic. `Codable`, so a program can
/// save it and restore it later.
public struct CastResumeState: Sendable, Hashable, Codable {
    /// The assets, in queue order.
    public let assets: [CastAsset]
    /// Where and how to start.
    public let options: CastLoadOptions
    private var languages: [CastMediaCharacteristic: String]

    /// Creates a state; `nil` when `options.index` is not an index of `assets` (so an empty queue gives `nil`).
    public init?(assets: [CastAsset], options: CastLoadOptions) {
        guard assets.indices.contains(options.index) else { return nil }
        self.assets = assets
        self.options = options
        languages = [:]
    }

    /// The characteristics that have a language.
    public var mediaSelectionCharacteristics: Set<CastMediaCharacteristic> { Set(languages.keys) }

    /// Sets (or with `nil`, clears) the language of a characteristic.
    public mutating func setMediaSelection(language: String?, for characteristic: CastMediaCharacteristic) {
        languages[characteristic] = language
    }

    /// The language of a characteristic, if any.
    public func mediaSelectionLanguage(for characteristic: CastMediaCharacteristic) -> String? {
        languages[characteristic]
    }

    private enum CodingKeys: String, CodingKey { case assets, options, languages }

    /// Decodes a state, checking the index like ``init(assets:options:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        assets = try container.decode([CastAsset].self, forKey: .assets)
        options = try container.decode(CastLoadOptions.self, forKey: .options)
        let raw = try container.decodeIfPresent([String: String].self, forKey: .languages) ?? [:]
        var languages: [CastMediaCharacteristic: String] = [:]
        for (key, value) in raw {
            guard let characteristic = CastMediaCharacteristic(rawValue: key) else {
                throw DecodingError.dataCorruptedError(forKey: .languages, in: container, debugDescription: "Unknown characteristic \(key)")
            }
            languages[characteristic] = value
        }
        self.languages = languages
        guard assets.indices.contains(options.index) else {
            throw DecodingError.dataCorruptedError(
                forKey: .options, in: container, debugDescription: "Index \(options.index) is outside the \(assets.count) assets")
        }
    }

    /// Encodes the state.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assets, forKey: .assets)
        try container.encode(options, forKey: .options)
        try container.encode(Dictionary(uniqueKeysWithValues: languages.map { ($0.key.rawValue, $0.value) }), forKey: .languages)
    }
}
