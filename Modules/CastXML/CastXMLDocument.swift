import Foundation

/// A parsed XML document.
///
/// Parsing goes through libxml2 with safe settings: no network access, no DTD (internal or
/// external; so no entity declarations, no external entities, no entity expansion), bounded
/// input size, nesting depth, attributes per element, element count and text length, and a time
/// limit (``CastXMLParseOptions``), each enforced while the document is read. The result is a plain
/// `Sendable` tree.
///
/// ```swift
/// let document = try CastXMLDocument(parsing: Data("<a><b>hi</b></a>".utf8))
/// document.root.child("b")?.text // "hi"
/// ```
public struct CastXMLDocument: Sendable, Hashable {
    /// The root element.
    public var root: CastXMLElement

    /// Creates a document from a root element.
    public init(root: CastXMLElement) {
        self.root = root
    }

    /// Parses XML bytes.
    /// - Parameters:
    ///   - data: the document.
    ///   - options: the limits (see ``CastXMLParseOptions``).
    ///   - clock: the clock ``CastXMLParseOptions/timeLimit`` is measured on (inject a manual one in tests).
    /// - Throws: ``CastXMLError``: `tooLarge`, `tooDeep`, `tooManyAttributes`, `tooManyNodes`,
    ///   `textTooLarge`, `timedOut`, `forbiddenDTD`, `forbiddenEntity`, `unsupportedEncoding`, `malformed`, `empty`.
    public init(
        parsing data: Data, options: CastXMLParseOptions = .default, clock: some Clock<Duration> = ContinuousClock()
    ) throws(CastXMLError) {
        self.root = try LibXML2Parser.parse(data, options: options, clock: clock)
    }

    /// Parses XML text.
    /// - Throws: ``CastXMLError``.
    public init(
        parsing text: String, options: CastXMLParseOptions = .default, clock: some Clock<Duration> = ContinuousClock()
    ) throws(CastXMLError) {
        try self.init(parsing: Data(text.utf8), options: options, clock: clock)
    }
}
