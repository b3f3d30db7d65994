internal import CLibXML2

/// Owns a libxml2 parser context and frees it with `xmlFreeParserCtxt`.
final class XMLParserContextHandle {
    let pointer: xmlParserCtxtPtr

    init?() {
        guard let pointer = xmlNewParserCtxt() else { return nil }
        self.pointer = pointer
    }

    deinit {
        pointer.pointee._private = nil
        xmlFreeParserCtxt(pointer)
    }
}

/// Owns a libxml2 document and frees it with `xmlFreeDoc`.
final class XMLDocumentHandle {
    let pointer: xmlDocPtr

    init(_ pointer: xmlDocPtr) {
        self.pointer = pointer
    }

    deinit {
        xmlFreeDoc(pointer)
    }
}

/// State shared with the SAX callbacks of one parse through the context's `_private` pointer.
/// Used on the parsing thread only, for the duration of one `xmlCtxtReadMemory` call.
final class XMLParseState {
    let maxDepth: Int
    var depth = 0
    var violation: CastXMLError.Code?

    init(maxDepth: Int) {
        self.maxDepth = maxDepth
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> (xmlParserCtxtPtr, XMLParseState)? {
        guard let context else { return nil }
        let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let state = parser.pointee._private else { return nil }
        return (parser, Unmanaged<XMLParseState>.fromOpaque(state).takeUnretainedValue())
    }

    func refuse(_ code: CastXMLError.Code, parser: xmlParserCtxtPtr) {
        if violation == nil { violation = code }
        xmlStopParser(parser)
    }
}
