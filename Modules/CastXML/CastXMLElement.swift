/// An attribute of an XML element.
public struct CastXMLAttribute: Sendable, Hashable {
    /// The local name (without prefix).
    public var name: String
    /// The namespace URI, or `nil` for an attribute in no namespace.
    public var namespaceURI: String?
    /// The value, with entity and character references resolved.
    public var value: String

    /// Creates an attribute.
    public init(name: String, namespaceURI: String? = nil, value: String) {
        self.name = name
        self.namespaceURI = namespaceURI
        self.value = value
    }
}

/// A child of an XML element: an element or a run of text (CDATA sections become text).
public enum CastXMLNode: Sendable, Hashable {
    /// A child element.
    case element(CastXMLElement)
    /// Character data.
    case text(String)
}

/// An XML element as a `Sendable` value: no C pointer survives parsing.
///
/// ```swift
/// let document = try CastXMLDocument(parsing: data)
/// let title = document.root.child("channel")?.child("title")?.text
/// ```
public struct CastXMLElement: Sendable, Hashable {
    /// The local name (without prefix).
    public var name: String
    /// The namespace URI, or `nil` for an element in no namespace.
    public var namespaceURI: String?
    /// The prefix used in the source, if any (informational: match on ``namespaceURI``).
    public var prefix: String?
    /// The attributes, in document order.
    public var attributes: [CastXMLAttribute]
    /// The children, in document order.
    public var children: [CastXMLNode]

    /// Creates an element.
    public init(
        name: String, namespaceURI: String? = nil, prefix: String? = nil,
        attributes: [CastXMLAttribute] = [], children: [CastXMLNode] = []
    ) {
        self.name = name
        self.namespaceURI = namespaceURI
        self.prefix = prefix
        self.attributes = attributes
        self.children = children
    }
}

extension CastXMLElement {
    /// The child elements, in document order.
    public var elements: [CastXMLElement] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// The concatenated text of this element and all its descendants.
    public var text: String {
        var result = ""
        appendText(to: &result)
        return result
    }

    /// ``text`` without leading and trailing white space.
    public var trimmedText: String {
        let scalars = text.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
            let last = scalars.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    private func appendText(to result: inout String) {
        for child in children {
            switch child {
            case .text(let text): result += text
            case .element(let element): element.appendText(to: &result)
            }
        }
    }

    /// Whether this element has the local name `name` and, when `namespace` is given, that namespace URI.
    /// - Parameter namespace: `nil` matches any namespace; use ``CastXMLElement/noNamespace`` for "no namespace".
    public func matches(_ name: String, namespace: String? = nil) -> Bool {
        guard self.name == name else { return false }
        guard let namespace else { return true }
        return namespace == Self.noNamespace ? namespaceURI == nil : namespaceURI == namespace
    }

    /// A namespace argument that matches only elements in no namespace.
    public static let noNamespace = "\u{0}none"

    /// The first child element named `name` (in `namespace`, if given).
    public func child(_ name: String, namespace: String? = nil) -> CastXMLElement? {
        for case .element(let element) in children where element.matches(name, namespace: namespace) {
            return element
        }
        return nil
    }

    /// All child elements named `name` (in `namespace`, if given).
    public func children(_ name: String, namespace: String? = nil) -> [CastXMLElement] {
        elements.filter { $0.matches(name, namespace: namespace) }
    }

    /// The value of the attribute named `name` (in `namespace`, if given; by default an attribute in no namespace).
    public func attribute(_ name: String, namespace: String? = nil) -> String? {
        attributes.first { $0.name == name && $0.namespaceURI == namespace }?.value
    }

    /// The first descendant element (depth first, document order) named `name` (in `namespace`, if given).
    public func firstDescendant(_ name: String, namespace: String? = nil) -> CastXMLElement? {
        for element in elements {
            if element.matches(name, namespace: namespace) { return element }
            if let found = element.firstDescendant(name, namespace: namespace) { return found }
        }
        return nil
    }
}
