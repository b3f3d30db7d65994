/// Limits applied while parsing an XML document.
///
/// The defaults suit small documents from untrusted peers: podcast feeds, DIAL device descriptions.
/// Every limit is enforced while the document is read, before libxml2 has seen the part that passes
/// it, and each has its own ``CastXMLError/Code``: a hostile document fails in well under a second
/// instead of keeping the parser busy (one element with 64 000 attributes took libxml2 74 s).
public struct CastXMLParseOptions: Sendable, Hashable {
    /// The largest accepted input, in bytes. Default 4 MiB.
    public var maxInputSize: Int
    /// The deepest accepted element nesting; the root element is at depth 1. Default 256,
    /// at most ``CastXMLParseOptions/depthCeiling``.
    public var maxDepth: Int
    /// The most attributes one element may have, namespace declarations included. Default 256 (an RSS
    /// `<enclosure>` has three; a feed's root declares a dozen namespaces).
    public var maxAttributesPerElement: Int
    /// The most elements the document may have. Default 250 000 (a 4 MiB feed of thousands of episodes
    /// has tens of thousands).
    public var maxNodes: Int
    /// The longest text run, attribute value, comment or CDATA section, in bytes as written (entity
    /// references count as written). Default 1 MiB.
    public var maxTextSize: Int
    /// How long parsing may take, from the call to the finished tree, measured on the clock given to
    /// the parse; `nil` for no limit. Default 5 s, far more than a 4 MiB document within the other limits needs.
    public var timeLimit: Duration?

    /// The largest value ``maxDepth`` may take (larger values are clamped to it).
    public static let depthCeiling = 1024

    /// Creates options.
    public init(
        maxInputSize: Int = 4 * 1024 * 1024, maxDepth: Int = 256, maxAttributesPerElement: Int = 256,
        maxNodes: Int = 250_000, maxTextSize: Int = 1 << 20, timeLimit: Duration? = .seconds(5)
    ) {
        self.maxInputSize = max(0, maxInputSize)
        self.maxDepth = min(max(1, maxDepth), Self.depthCeiling)
        self.maxAttributesPerElement = max(0, maxAttributesPerElement)
        self.maxNodes = max(1, maxNodes)
        self.maxTextSize = max(0, maxTextSize)
        self.timeLimit = timeLimit
    }

    /// 4 MiB of input, 256 levels of nesting, 256 attributes per element, 250 000 elements, 1 MiB per
    /// text, 5 s.
    public static let `default` = CastXMLParseOptions()
}
