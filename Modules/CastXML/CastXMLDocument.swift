import Foundation

/// A parsed XML document.
///
/// Parsing goes through libxml2 with safe settings: no network access, no DTD (internal or
/// external; so no entity declarations, no external entities, no entity expansion), bounded
/// input size and nesting depth. The result is a plain `Sendable` tree.
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
    /// - Throws: ``CastXMLError``: `tooLarge`, `tooDeep`, `forbiddenDTD`, `forbiddenEntity`, `malformed`, `empty`.
    public init(parsing data: Data, options: CastXMLParseOptions = .default) throws(CastXMLError) {
        self.root = try LibXML2Parser.parse(data, options: options)
    }

    /// Parses XML text.
    /// - Throws: ``CastXMLError``.
    public init(parsing text: String, options: CastXMLParseOptions = .default) throws(CastXMLError) {
        try self.init(parsing: Data(text.utf8), options: options)
    }
}
