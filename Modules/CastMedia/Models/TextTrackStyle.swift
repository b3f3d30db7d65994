public import CastJSON
public import CastMediaMetadata

/// An sRGB colour with opacity, written `#RRGGBBAA` on the wire.
public struct CastColor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// Opacity, 0 (transparent) – 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA` (ASCII hexadecimal digits); `nil` for anything else.
    public init?(cssString: String) {
        var utf8 = cssString.utf8[...]
        guard utf8.popFirst() == UInt8(ascii: "#"), utf8.count <= 8 else { return nil }
        var value: UInt32 = 0
        for byte in utf8 {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        /// Nibble `index` of `count`, counted from the left.
        func nibble(_ index: Int, of count: Int) -> UInt8 { UInt8(truncatingIfNeeded: value >> (4 * (count - 1 - index))) & 0xF }
        switch utf8.count {
        case 3, 4:
            let count = utf8.count
            self.init(red: nibble(0, of: count) * 17, green: nibble(1, of: count) * 17, blue: nibble(2, of: count) * 17,
                      alpha: count == 4 ? nibble(3, of: count) * 17 : 255)
        case 6, 8:
            if utf8.count == 6 { value = value << 8 | 0xFF }
            self.init(red: UInt8(truncatingIfNeeded: value >> 24), green: UInt8(truncatingIfNeeded: value >> 16),
                      blue: UInt8(truncatingIfNeeded: value >> 8), alpha: UInt8(truncatingIfNeeded: value))
        default:
            return nil
        }
    }

    /// `#RRGGBBAA`, upper-case.
    public var cssString: String {
        "#" + [red, green, blue, alpha].map { value in
            let text = String(value, radix: 16, uppercase: true)
            return value < 16 ? "0" + text : text
        }.joined()
    }

    /// ``cssString``.
    public var description: String { cssString }

    /// Opaque black.
    public static let black = CastColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = CastColor(red: 255, green: 255, blue: 255)
    /// Fully transparent.
    public static let clear = CastColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Reads a CSS colour string (see ``init(cssString:)``).
    /// - Throws: `JSONError` (`typeMismatch`) when the value is not a string or not a colour.
    public init(json: JSONValue) throws(JSONError) {
        guard case .string(let text) = json, let color = CastColor(cssString: text) else {
            throw JSONError(code: .typeMismatch, message: "Invalid colour \(json.shortDescription)")
        }
        self = color
    }

    /// Decodes a CSS colour string (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }

    /// Encodes `#RRGGBBAA`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(cssString)
    }
}

/// How text tracks look (`GCKMediaTextTrackStyle`). Unset fields leave the receiver's choice.
///
/// ```swift
/// var style = TextTrackStyle()
/// style.foregroundColor = CastColor(cssString: "#FF000080")  // red at 50 %
/// style.fontFamily = "serif"
/// ```
public struct TextTrackStyle: Sendable, Hashable, Codable {
    /// The outline style of characters (`edgeType`).
    public struct EdgeType: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No edge.
        public static let none = EdgeType(rawValue: "NONE")
        /// An outline.
        public static let outline = EdgeType(rawValue: "OUTLINE")
        /// A drop shadow.
        public static let dropShadow = EdgeType(rawValue: "DROP_SHADOW")
        /// Raised.
        public static let raised = EdgeType(rawValue: "RAISED")
        /// Depressed.
        public static let depressed = EdgeType(rawValue: "DEPRESSED")
    }

    /// A generic font family (`fontGenericFamily`).
    public struct FontGenericFamily: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Sans serif.
        public static let sansSerif = FontGenericFamily(rawValue: "SANS_SERIF")
        /// Monospaced sans serif.
        public static let monospacedSansSerif = FontGenericFamily(rawValue: "MONOSPACED_SANS_SERIF")
        /// Serif.
        public static let serif = FontGenericFamily(rawValue: "SERIF")
        /// Monospaced serif.
        public static let monospacedSerif = FontGenericFamily(rawValue: "MONOSPACED_SERIF")
        /// Casual.
        public static let casual = FontGenericFamily(rawValue: "CASUAL")
        /// Cursive.
        public static let cursive = FontGenericFamily(rawValue: "CURSIVE")
        /// Small capitals.
        public static let smallCapitals = FontGenericFamily(rawValue: "SMALL_CAPITALS")
    }

    /// A font style (`fontStyle`).
    public struct FontStyle: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Normal.
        public static let normal = FontStyle(rawValue: "NORMAL")
        /// Bold.
        public static let bold = FontStyle(rawValue: "BOLD")
        /// Bold italic.
        public static let boldItalic = FontStyle(rawValue: "BOLD_ITALIC")
        /// Italic.
        public static let italic = FontStyle(rawValue: "ITALIC")
    }

    /// The shape of the caption window (`windowType`).
    public struct WindowType: CastStringEnumeration {
        /// The wire string.
        public var rawValue: String
        /// Creates a value from its wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No window.
        public static let none = WindowType(rawValue: "NONE")
        /// A rectangle.
        public static let normal = WindowType(rawValue: "NORMAL")
        /// A rectangle with rounded corners (see ``TextTrackStyle/windowRoundedCornerRadius``).
        public static let roundedCorners = WindowType(rawValue: "ROUNDED_CORNERS")
    }

    /// The text colour and opacity.
    public var foregroundColor: CastColor?
    /// The background colour and opacity.
    public var backgroundColor: CastColor?
    /// The edge type.
    public var edgeType: EdgeType?
    /// The edge colour.
    public var edgeColor: CastColor?
    /// The font scale (1 is the default size).
    public var fontScale: Double?
    /// A font family name.
    public var fontFamily: String?
    /// A generic font family.
    public var fontGenericFamily: FontGenericFamily?
    /// The font style.
    public var fontStyle: FontStyle?
    /// The window colour.
    public var windowColor: CastColor?
    /// The corner radius of a rounded window, in pixels.
    public var windowRoundedCornerRadius: Double?
    /// The window shape.
    public var windowType: WindowType?
    /// Application data.
    public var customData: CastCustomData?

    /// Creates a style.
    public init(foregroundColor: CastColor? = nil, backgroundColor: CastColor? = nil, edgeType: EdgeType? = nil,
                edgeColor: CastColor? = nil, fontScale: Double? = nil, fontFamily: String? = nil,
                fontGenericFamily: FontGenericFamily? = nil, fontStyle: FontStyle? = nil, windowColor: CastColor? = nil,
                windowRoundedCornerRadius: Double? = nil, windowType: WindowType? = nil, customData: CastCustomData? = nil) {
        self.foregroundColor = foregroundColor
        self.backgroundColor = backgroundColor
        self.edgeType = edgeType
        self.edgeColor = edgeColor
        self.fontScale = fontScale
        self.fontFamily = fontFamily
        self.fontGenericFamily = fontGenericFamily
        self.fontStyle = fontStyle
        self.windowColor = windowColor
        self.windowRoundedCornerRadius = windowRoundedCornerRadius
        self.windowType = windowType
        self.customData = customData
    }

    /// The style receivers use by default: white sans-serif text at scale 1 on a transparent background.
    public static let `default` = TextTrackStyle(
        foregroundColor: .white, backgroundColor: .clear, edgeType: TextTrackStyle.EdgeType.none, fontScale: 1,
        fontGenericFamily: .sansSerif, fontStyle: .normal, windowType: WindowType.none)

    private enum CodingKeys: Int, CodingKey, JSONMemberKey {
        case foregroundColor, backgroundColor, edgeType, edgeColor, fontScale, fontFamily, fontGenericFamily, fontStyle,
            windowColor, windowRoundedCornerRadius, windowType, customData
        static let table = JSONKeyTable(CodingKeys.self)
    }

    /// Reads a style; an invalid colour or a member of the wrong type reads as absent.
    /// - Throws: `JSONError` (`typeMismatch`) only when the value is not an object.
    public init(json: JSONValue) throws(JSONError) {
        let reader = try JSONObjectReader<CodingKeys>(json, decoding: "TextTrackStyle")
        foregroundColor = reader.color(.foregroundColor)
        backgroundColor = reader.color(.backgroundColor)
        edgeType = reader.enumeration(.edgeType)
        edgeColor = reader.color(.edgeColor)
        fontScale = reader.double(.fontScale)
        fontFamily = reader.string(.fontFamily)
        fontGenericFamily = reader.enumeration(.fontGenericFamily)
        fontStyle = reader.enumeration(.fontStyle)
        windowColor = reader.color(.windowColor)
        windowRoundedCornerRadius = reader.double(.windowRoundedCornerRadius)
        windowType = reader.enumeration(.windowType)
        customData = reader[.customData].map(CastCustomData.init)
    }

    /// Decodes a style (see ``init(json:)``).
    public init(from decoder: any Decoder) throws {
        self = try decodeThroughJSON(decoder, Self.init(json:))
    }
}

extension JSONObjectReader {
    /// The colour member `key`; `nil` when missing, not a string or not a colour.
    fileprivate func color(_ key: Key) -> CastColor? {
        string(key).flatMap(CastColor.init(cssString:))
    }
}
