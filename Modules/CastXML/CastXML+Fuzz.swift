internal import CLibXML2
import Foundation

/// The differential check of the fuzz targets that read XML: ``CastXMLDocument`` against libxml2's own parse.
@_spi(Fuzzing) public enum CastXMLFuzzing {
    /// Parses `data` with ``CastXMLDocument`` (default options) and with a plain `xmlReadMemory` using the
    /// same flags but none of Castor's guards, and traps when they disagree:
    /// - what libxml2 finds not well-formed, Castor must reject;
    /// - a well-formed document with a DTD must be rejected as ``CastXMLError/Code/forbiddenDTD``;
    /// - any other well-formed document must be accepted, with the same tree: element names and namespaces,
    ///   attributes (read with `xmlGetNsProp`), child elements in order, and text (`xmlNodeGetContent`).
    /// - Returns: Castor's document, when it parsed.
    @discardableResult
    public static func compareWithLibXML2(_ data: Data) -> CastXMLDocument? {
        let ours = Result { () throws(CastXMLError) in try CastXMLDocument(parsing: data) }
        guard data.count <= CastXMLParseOptions.default.maxInputSize, !data.isEmpty else { return try? ours.get() }
        let flags = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let pointer = data.withUnsafeBytes { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in xmlReadMemory(chars.baseAddress, Int32(chars.count), nil, nil, flags) }
        }
        guard let reference = pointer.map(XMLDocumentHandle.init) else {
            if case .success(let document) = ours { fatalError("Castor accepted XML libxml2 finds not well-formed: \(document.root)") }
            return nil
        }
        if reference.pointer.pointee.intSubset != nil || reference.pointer.pointee.extSubset != nil {
            switch ours {
            case .failure(let error) where error.code == .forbiddenDTD: return nil
            default: fatalError("A document with a DTD gave \(ours), not forbiddenDTD")
            }
        }
        guard let root = xmlDocGetRootElement(reference.pointer) else { fatalError("libxml2 parsed a document without a root") }
        let document: CastXMLDocument
        switch ours {
        case .success(let parsed): document = parsed
        case .failure(let error) where structuralRefusalHolds(error, root: root, data: data): return nil
        case .failure(let error): fatalError("Castor rejected a well-formed document without DTD: \(error)")
        }
        if let difference = difference(document.root, root, path: "/") {
            fatalError("Castor's tree differs from libxml2's: \(difference)")
        }
        return document
    }

    /// Whether a refusal for a structural limit is borne out by libxml2's tree of the same document (an
    /// element with more attributes and namespace declarations, more elements than the limit, or input
    /// longer than the text limit), or cannot be checked (a time limit).
    private static func structuralRefusalHolds(_ error: CastXMLError, root: xmlNodePtr, data: Data) -> Bool {
        let options = CastXMLParseOptions.default
        switch error.code {
        case .timedOut, .unsupportedEncoding: return true
        case .textTooLarge: return data.count > options.maxTextSize
        case .tooManyAttributes, .tooManyNodes: break
        default: return false
        }
        var elements = 0
        var widest = 0
        var stack: [xmlNodePtr] = [root]
        while let node = stack.popLast() {
            guard node.pointee.type == XML_ELEMENT_NODE else { continue }
            elements += 1
            var attributes = 0
            var property = node.pointee.properties
            while let current = property {
                attributes += 1
                property = current.pointee.next
            }
            var namespace = node.pointee.nsDef
            while let current = namespace {
                attributes += 1
                namespace = current.pointee.next
            }
            widest = max(widest, attributes)
            var child = node.pointee.children
            while let current = child {
                stack.append(current)
                child = current.pointee.next
            }
        }
        return error.code == .tooManyAttributes ? widest > options.maxAttributesPerElement : elements > options.maxNodes
    }

    private static func string(_ text: UnsafePointer<xmlChar>?) -> String? {
        text.map { String(cString: $0) }
    }

    /// Takes ownership of a string libxml2 allocated.
    private static func owned(_ text: UnsafeMutablePointer<xmlChar>?) -> String? {
        guard let text else { return nil }
        defer { castor_xml_free(text) }
        return String(cString: text)
    }

    private static func difference(_ element: CastXMLElement, _ node: xmlNodePtr, path: String) -> String? {
        let here = path + element.name
        guard element.name == string(node.pointee.name) ?? "" else { return "\(here): name against \(string(node.pointee.name) ?? "")" }
        let namespace = node.pointee.ns.flatMap { string($0.pointee.href) }
        guard element.namespaceURI == namespace else { return "\(here): namespace \(element.namespaceURI ?? "none") against \(namespace ?? "none")" }
        var attributes: [CastXMLAttribute] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let name = string(current.pointee.name) ?? ""
            let namespace = current.pointee.ns
            let href = namespace.flatMap { string($0.pointee.href) }
            let value = namespace.map { owned(xmlGetNsProp(node, current.pointee.name, $0.pointee.href)) } ?? owned(xmlGetNoNsProp(node, current.pointee.name))
            attributes.append(CastXMLAttribute(name: name, namespaceURI: href, value: value ?? ""))
            attribute = current.pointee.next
        }
        guard element.attributes == attributes else { return "\(here): attributes \(element.attributes) against \(attributes)" }
        let text = owned(xmlNodeGetContent(node)) ?? ""
        guard Array(element.text.unicodeScalars) == Array(text.unicodeScalars) else {
            return "\(here): text \(element.text.debugDescription) against \(text.debugDescription)"
        }
        var children: [xmlNodePtr] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { children.append(current) }
            child = current.pointee.next
        }
        let elements = element.elements
        guard elements.count == children.count else { return "\(here): \(elements.count) child elements against \(children.count)" }
        for (index, pair) in zip(elements, children).enumerated() {
            if let difference = difference(pair.0, pair.1, path: "\(here)[\(index)]/") { return difference }
        }
        return nil
    }
}
