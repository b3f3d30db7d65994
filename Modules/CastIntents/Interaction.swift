import Foundation

/// One play of media by the user, donated to a store: the Linux `INInteraction`.
///
/// The ``groupIdentifier`` ties donations to a logical container so they can be deleted together
/// (the Audio Cast sample uses the show's or playlist's identifier, and deletes the group when
/// the user unsubscribes).
public struct Interaction: Sendable, Hashable, Codable {
    /// The intent that was performed.
    public let intent: PlayMediaIntent
    /// When it was performed.
    public let date: Date
    /// The donation's unique identifier (a fresh UUID by default).
    public let identifier: String
    /// The group the donation belongs to, for ``CastIntentStore/deleteInteractions(groupIdentifier:)``.
    public let groupIdentifier: String?

    /// Creates an interaction.
    /// - Throws: ``CastIntentsError`` for an invalid identifier or group identifier
    ///   (``CastIntentsError/Code/emptyIdentifier``, ``CastIntentsError/Code/identifierTooLong``,
    ///   ``CastIntentsError/Code/invalidIdentifier``).
    public init(
        intent: PlayMediaIntent, date: Date = Date(), identifier: String = UUID().uuidString,
        groupIdentifier: String? = nil
    ) throws(CastIntentsError) {
        try Validation.identifier(identifier, "interaction identifier")
        if let groupIdentifier { try Validation.identifier(groupIdentifier, "group identifier") }
        self.intent = intent
        self.date = date
        self.identifier = identifier
        self.groupIdentifier = groupIdentifier
    }

    /// Checks everything a store requires of a donation: the intent must name content.
    /// - Throws: ``CastIntentsError/Code/emptyIntent``, ``CastIntentsError/Code/invalidDate``.
    public func validateForDonation() throws(CastIntentsError) {
        try intent.validateHasContent()
        if !date.timeIntervalSinceReferenceDate.isFinite {
            throw CastIntentsError(code: .invalidDate, message: "The interaction date is not finite.")
        }
    }

    private enum CodingKeys: String, CodingKey { case intent, date, identifier, groupIdentifier }

    /// Decodes and validates an interaction (the date as seconds since 2001-01-01 UTC).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        do {
            try self.init(
                intent: c.decode(PlayMediaIntent.self, forKey: .intent),
                date: Date(timeIntervalSinceReferenceDate: c.decode(Double.self, forKey: .date)),
                identifier: c.decode(String.self, forKey: .identifier),
                groupIdentifier: c.decodeIfPresent(String.self, forKey: .groupIdentifier))
        } catch let error as CastIntentsError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the interaction (the date as seconds since 2001-01-01 UTC).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(intent, forKey: .intent)
        try c.encode(date.timeIntervalSinceReferenceDate, forKey: .date)
        try c.encode(identifier, forKey: .identifier)
        try c.encodeIfPresent(groupIdentifier, forKey: .groupIdentifier)
    }
}
