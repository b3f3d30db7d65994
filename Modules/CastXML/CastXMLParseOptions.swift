/// Limits applied while parsing an XML document.
///
/// The defaults suit small documents from untrusted peers: podcast feeds, DIAL device descriptions.
public struct CastXMLParseOptions: Sendable, Hashable {
    /// The largest accepted input, in bytes. Default 4 MiB.
    public var maxInputSize: Int
    /// The deepest accepted element nesting; the root element is at depth 1. Default 256,
    /// at most ``CastXMLParseOptions/depthCeiling``.
    public var maxDepth: Int

    /// The largest value ``maxDepth`` may take (larger values are clamped to it).
    public static let depthCeiling = 1024

    /// Creates options.
    public init(maxInputSize: Int = 4 * 1024 * 1024, maxDepth: Int = 256) {
        self.maxInputSize = max(0, maxInputSize)
        self.maxDepth = min(max(1, maxDepth), Self.depthCeiling)
    }

    /// 4 MiB of input, 256 levels of nesting.
    public static let `default` = CastXMLParseOptions()
}
