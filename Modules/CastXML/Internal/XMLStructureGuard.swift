/// Counts what an XML document is made of while its bytes are handed to libxml2, and says when it
/// goes past a limit: attributes in one start tag, elements in all, the length of one text run,
/// attribute value, comment or CDATA section.
///
/// It runs ahead of libxml2: each chunk is scanned before libxml2 gets it, so a start tag with too
/// many attributes is refused before libxml2 has read all of it. That matters: libxml2 2.9 checks
/// every attribute of a start tag against every earlier one, and links each into a list by walking
/// the list first, so one `<item>` with 64 000 attributes cost 74 s (a 4 MB feed with 350 000, far more).
///
/// It is a lexer of markup, not a parser: it finds tags, quoted values, comments, CDATA sections,
/// processing instructions and declarations by their delimiters, in code units of the document's
/// encoding family (1, 2 or 4 bytes, as libxml2 detects it from the first bytes), and judges nothing
/// else (libxml2 does). It never counts more than the document holds, so a well-formed document within
/// the limits is never refused; after a `<!DOCTYPE` it stops counting (the parse refuses a DTD anyway).
/// Pure and bounded: O(1) work per byte, a few integers of state.
struct XMLStructureGuard: Sendable {
    /// The limits it enforces.
    struct Limits: Sendable {
        var attributesPerElement: Int
        var elements: Int
        var textSize: Int
    }

    /// How code units are read from the bytes.
    struct Encoding: Sendable, Equatable {
        /// Bytes per code unit: 1 (UTF-8 and ASCII-compatible encodings), 2 (UTF-16) or 4 (UCS-4).
        var width: Int
        var bigEndian: Bool

        static let byte = Encoding(width: 1, bigEndian: false)

        /// The encoding family of a document from its first bytes, as libxml2 detects it; `nil` for
        /// EBCDIC, whose markup is not in ASCII code units.
        static func detect(_ head: some Collection<UInt8>) -> Encoding? {
            let bytes = Array(head.prefix(4))
            func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
            if starts([0x00, 0x00, 0x00, 0x3C]) || starts([0x00, 0x00, 0xFE, 0xFF]) { return Encoding(width: 4, bigEndian: true) }
            if starts([0x3C, 0x00, 0x00, 0x00]) || starts([0xFF, 0xFE, 0x00, 0x00]) { return Encoding(width: 4, bigEndian: false) }
            if starts([0xFE, 0xFF]) || starts([0x00, 0x3C, 0x00, 0x3F]) { return Encoding(width: 2, bigEndian: true) }
            if starts([0xFF, 0xFE]) || starts([0x3C, 0x00, 0x3F, 0x00]) { return Encoding(width: 2, bigEndian: false) }
            if starts([0x4C, 0x6F, 0xA7, 0x94]) { return nil }
            return .byte
        }
    }

    private enum State: Sendable {
        case text, markup, bang, bangDash, startTag, quoted(UInt32), endTag, comment, cdata, instruction, declaration
    }

    let limits: Limits
    let encoding: Encoding
    private var state = State.text
    /// Attributes (`=` outside quotes) in the current start tag.
    private var attributes = 0
    private var elements = 0
    /// Code units in the current text run, value, comment or section.
    private var run = 0
    /// The two code units before the current one (ends of comments, sections and instructions).
    private var previous: (UInt32, UInt32) = (0, 0)
    /// Bytes of a code unit split between chunks.
    private var partial: UInt32 = 0
    private var partialCount = 0
    /// A declaration (`<!DOCTYPE`): from there on nothing is counted.
    private var stopped = false

    init(limits: Limits, encoding: Encoding) {
        self.limits = limits
        self.encoding = encoding
    }

    /// Scans the next bytes of the document; the first limit they pass, or `nil`.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> CastXMLError.Code? {
        guard !stopped else { return nil }
        if encoding.width == 1 {
            for byte in bytes {
                if let code = step(UInt32(byte)) { return code }
                if stopped { return nil }
            }
            return nil
        }
        for byte in bytes {
            partial = encoding.bigEndian ? partial << 8 | UInt32(byte) : partial | UInt32(byte) << (8 * UInt32(partialCount))
            partialCount += 1
            guard partialCount == encoding.width else { continue }
            let unit = partial
            partial = 0
            partialCount = 0
            if let code = step(unit) { return code }
            if stopped { return nil }
        }
        return nil
    }

    private static let lessThan = UInt32(UInt8(ascii: "<")), greaterThan = UInt32(UInt8(ascii: ">"))
    private static let slash = UInt32(UInt8(ascii: "/")), bangMark = UInt32(UInt8(ascii: "!"))
    private static let question = UInt32(UInt8(ascii: "?")), dash = UInt32(UInt8(ascii: "-"))
    private static let openBracket = UInt32(UInt8(ascii: "[")), closeBracket = UInt32(UInt8(ascii: "]"))
    private static let equals = UInt32(UInt8(ascii: "=")), doubleQuote = UInt32(UInt8(ascii: "\"")), singleQuote = UInt32(UInt8(ascii: "'"))

    private mutating func step(_ unit: UInt32) -> CastXMLError.Code? {
        defer { previous = (previous.1, unit) }
        switch state {
        case .text:
            if unit == Self.lessThan {
                state = .markup
            } else {
                return grow()
            }
        case .markup:
            switch unit {
            case Self.slash: state = .endTag
            case Self.bangMark: state = .bang
            case Self.question: startRun(.instruction)
            default:
                elements += 1
                attributes = 0
                state = .startTag
                if elements > limits.elements { return .tooManyNodes }
            }
        case .bang:
            switch unit {
            case Self.dash: state = .bangDash
            case Self.openBracket: startRun(.cdata)
            default:
                state = .declaration
                stopped = true
            }
        case .bangDash:
            if unit == Self.dash {
                startRun(.comment)
                previous = (0, 0)
                return nil
            }
            state = .declaration
            stopped = true
        case .startTag:
            switch unit {
            case Self.doubleQuote, Self.singleQuote: startRun(.quoted(unit))
            case Self.equals:
                attributes += 1
                if attributes > limits.attributesPerElement { return .tooManyAttributes }
            case Self.greaterThan: startRun(.text)
            default: break
            }
        case .quoted(let quote):
            if unit == quote {
                state = .startTag
            } else {
                return grow()
            }
        case .endTag:
            if unit == Self.greaterThan { startRun(.text) }
        case .comment:
            if unit == Self.greaterThan, previous == (Self.dash, Self.dash) {
                startRun(.text)
            } else {
                return grow()
            }
        case .cdata:
            if unit == Self.greaterThan, previous == (Self.closeBracket, Self.closeBracket) {
                startRun(.text)
            } else {
                return grow()
            }
        case .instruction:
            if unit == Self.greaterThan, previous.1 == Self.question {
                startRun(.text)
            } else {
                return grow()
            }
        case .declaration:
            break
        }
        return nil
    }

    private mutating func startRun(_ next: State) {
        state = next
        run = 0
    }

    private mutating func grow() -> CastXMLError.Code? {
        run += 1
        return run > limits.textSize ? .textTooLarge : nil
    }
}
