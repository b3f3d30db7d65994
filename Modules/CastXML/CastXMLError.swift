/// Why an XML document was refused.
///
/// CastXML refuses rather than repairs: a document that is too large, too deep, declares a DTD or
/// entities, or is not well formed produces an error and no partial tree.
public struct CastXMLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for matching in `catch` clauses.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: Sendable, Hashable {
            case tooLarge, tooDeep, malformed, forbiddenDTD, forbiddenEntity, empty
            case tooManyAttributes, tooManyNodes, textTooLarge, timedOut, unsupportedEncoding
        }
        private let base: Base
        /// The input is larger than ``CastXMLParseOptions/maxInputSize``.
        public static let tooLarge = Code(base: .tooLarge)
        /// Elements are nested deeper than ``CastXMLParseOptions/maxDepth``.
        public static let tooDeep = Code(base: .tooDeep)
        /// The input is not well-formed XML (or uses an entity it does not declare).
        public static let malformed = Code(base: .malformed)
        /// The input has a document type declaration (`<!DOCTYPE …>`), internal or external.
        /// DTDs are the vehicle of entity expansion attacks and external entity reads, so they are refused.
        public static let forbiddenDTD = Code(base: .forbiddenDTD)
        /// The input declares or references a non-predefined entity.
        public static let forbiddenEntity = Code(base: .forbiddenEntity)
        /// The input is empty or holds no root element.
        public static let empty = Code(base: .empty)
        /// An element has more attributes (namespace declarations included) than
        /// ``CastXMLParseOptions/maxAttributesPerElement``; refused before libxml2 read the whole tag.
        public static let tooManyAttributes = Code(base: .tooManyAttributes)
        /// The document has more elements than ``CastXMLParseOptions/maxNodes``.
        public static let tooManyNodes = Code(base: .tooManyNodes)
        /// A text run, attribute value, comment or CDATA section is longer than ``CastXMLParseOptions/maxTextSize``.
        public static let textTooLarge = Code(base: .textTooLarge)
        /// Parsing took longer than ``CastXMLParseOptions/timeLimit``.
        public static let timedOut = Code(base: .timedOut)
        /// The document's encoding is not one CastXML reads (EBCDIC).
        public static let unsupportedEncoding = Code(base: .unsupportedEncoding)
        /// A short name of the code.
        public var description: String { "\(base)" }
    }

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// The 1-based line of the input where the problem was found, when known.
    public var line: Int?

    /// Creates an error.
    public init(code: Code, message: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
    }

    /// `code: message (line n)`.
    public var description: String {
        "\(code): \(message)" + (line.map { " (line \($0))" } ?? "")
    }
}
