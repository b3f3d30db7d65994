import Foundation

/// The checks shared by every value type of CastIntents.
enum Validation {
    /// Checks an identifier: not empty, at most ``MediaItem/maximumIdentifierLength`` UTF-8 bytes,
    /// no control characters.
    static func identifier(_ value: String, _ what: String) throws(CastIntentsError) {
        if value.isEmpty {
            throw CastIntentsError(code: .emptyIdentifier, message: "The \(what) is empty.")
        }
        if value.utf8.count > MediaItem.maximumIdentifierLength {
            throw CastIntentsError(
                code: .identifierTooLong,
                message: "The \(what) is \(value.utf8.count) UTF-8 bytes long; at most \(MediaItem.maximumIdentifierLength) are allowed.")
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw CastIntentsError(code: .invalidIdentifier, message: "The \(what) contains a control character.")
        }
    }

    /// Checks a raw value of an extensible type name (media-item type, repeat mode, prediction mode).
    static func token(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 64
            && value.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2E || byte == 0x5F || byte == 0x2D
            }
    }

    /// Checks a title: when present, not blank and at most ``MediaItem/maximumTitleLength`` characters.
    static func title(_ value: String?) throws(CastIntentsError) {
        guard let value else { return }
        if value.allSatisfy({ $0.isWhitespace }) {
            throw CastIntentsError(code: .emptyTitle, message: "The title is empty; leave it nil instead.")
        }
        let count = value.count
        if count > MediaItem.maximumTitleLength {
            throw CastIntentsError(
                code: .titleTooLong,
                message: "The title is \(count) characters long; at most \(MediaItem.maximumTitleLength) are allowed.")
        }
        if value.unicodeScalars.contains("\u{0}") {
            throw CastIntentsError(code: .emptyTitle, message: "The title contains a NUL character.")
        }
    }
}
