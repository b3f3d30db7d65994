internal import CLibXML2
import Foundation

/// The libxml2 side of ``CastXMLDocument``: parse in memory with safe options, then copy into Swift values.
enum LibXML2Parser {
    /// `xmlInitParser` must run once before libxml2 is used from several threads.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    /// Libxml2's own nesting limit without `XML_PARSE_HUGE`.
    private static let libxmlDepthLimit = 256

    static func parse(_ data: Data, options: CastXMLParseOptions, clock: some Clock<Duration>) throws(CastXMLError) -> CastXMLElement {
        guard data.count <= options.maxInputSize, data.count <= Int(Int32.max) else {
            throw CastXMLError(
                code: .tooLarge,
                message: "The document is \(data.count) bytes, more than the limit of \(options.maxInputSize) bytes")
        }
        guard data.contains(where: { !Self.isXMLSpace($0) }) else {
            throw CastXMLError(code: .empty, message: "The document is empty")
        }
        guard let encoding = XMLStructureGuard.Encoding.detect(data) else {
            throw CastXMLError(code: .unsupportedEncoding, message: "The document is in EBCDIC, which is not supported")
        }
        _ = initialized

        guard let context = XMLParserContextHandle() else {
            throw CastXMLError(code: .malformed, message: "libxml2 could not allocate a parser context")
        }
        let start = clock.now
        let deadline = options.timeLimit.map { start.advanced(by: $0) }
        let timedOut: () -> Bool = { deadline.map { clock.now >= $0 } ?? false }
        let state = XMLParseState(maxDepth: options.maxDepth)
        let input = XMLInput(data: data, structure: XMLStructureGuard(
            limits: .init(attributesPerElement: options.maxAttributesPerElement, elements: options.maxNodes,
                          textSize: options.maxTextSize),
            encoding: encoding), timedOut: timedOut)
        let document: XMLDocumentHandle? = withExtendedLifetime((state, input)) {
            context.pointer.pointee._private = Unmanaged.passUnretained(state).toOpaque()
            defer { context.pointer.pointee._private = nil }
            installGuards(on: context.pointer)
            var flags = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue
                | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
            // Never XML_PARSE_NOENT, XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_DTDVALID or XML_PARSE_XINCLUDE.
            if options.maxDepth > libxmlDepthLimit { flags |= Int32(XML_PARSE_HUGE.rawValue) }
            // libxml2 pulls the bytes in chunks through `read`, each scanned by the structure guard (and the
            // deadline checked) before libxml2 sees it.
            let pointer = xmlCtxtReadIO(
                context.pointer, XMLInput.read, nil, Unmanaged.passUnretained(input).toOpaque(), nil, nil, flags)
            return pointer.map(XMLDocumentHandle.init)
        }

        if let violation = input.violation {
            throw CastXMLError(code: violation, message: message(for: violation, options: options),
                               line: lastError(of: context)?.line)
        }
        if let violation = state.violation {
            throw CastXMLError(code: violation, message: message(for: violation, options: options),
                               line: lastError(of: context)?.line)
        }
        guard let document else {
            throw failure(from: context)
        }
        // A DOCTYPE is refused by the SAX guard; check the tree too, in case a future libxml2 builds it differently.
        if document.pointer.pointee.intSubset != nil || document.pointer.pointee.extSubset != nil {
            throw CastXMLError(code: .forbiddenDTD, message: message(for: .forbiddenDTD, options: options))
        }
        guard let root = xmlDocGetRootElement(document.pointer) else {
            throw CastXMLError(code: .empty, message: "The document has no root element")
        }
        return try convert(root, document: document) { () throws(CastXMLError) in
            guard timedOut() else { return }
            throw CastXMLError(code: .timedOut, message: message(for: .timedOut, options: options))
        }
    }

    private static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    // MARK: - Guards

    /// Replaces SAX callbacks so a DOCTYPE or entity declaration stops the parse at once, and nesting is counted.
    private static func installGuards(on parser: xmlParserCtxtPtr) {
        guard let sax = parser.pointee.sax else { return }
        sax.pointee.internalSubset = { context, _, _, _ in
            guard let (parser, state) = XMLParseState.from(context) else { return }
            state.refuse(.forbiddenDTD, parser: parser)
        }
        sax.pointee.externalSubset = { context, _, _, _ in
            guard let (parser, state) = XMLParseState.from(context) else { return }
            state.refuse(.forbiddenDTD, parser: parser)
        }
        sax.pointee.entityDecl = { context, _, _, _, _, _ in
            guard let (parser, state) = XMLParseState.from(context) else { return }
            state.refuse(.forbiddenEntity, parser: parser)
        }
        sax.pointee.startElementNs = { context, localName, prefix, uri, namespaceCount, namespaces, attributeCount, defaulted, attributes in
            guard let (parser, state) = XMLParseState.from(context) else { return }
            state.depth += 1
            if state.depth > state.maxDepth {
                state.refuse(.tooDeep, parser: parser)
                return
            }
            xmlSAX2StartElementNs(context, localName, prefix, uri, namespaceCount, namespaces, attributeCount, defaulted, attributes)
        }
        sax.pointee.endElementNs = { context, localName, prefix, uri in
            guard let (_, state) = XMLParseState.from(context) else { return }
            state.depth -= 1
            xmlSAX2EndElementNs(context, localName, prefix, uri)
        }
    }

    private static func message(for code: CastXMLError.Code, options: CastXMLParseOptions) -> String {
        switch code {
        case .forbiddenDTD: "The document has a document type declaration (DTD), which is refused"
        case .forbiddenEntity: "The document declares an entity, which is refused"
        case .tooDeep: "Elements are nested deeper than the limit of \(options.maxDepth)"
        case .tooManyAttributes: "An element has more than the limit of \(options.maxAttributesPerElement) attributes"
        case .tooManyNodes: "The document has more than the limit of \(options.maxNodes) elements"
        case .textTooLarge: "A text, attribute value, comment or CDATA section is longer than the limit of \(options.maxTextSize) bytes"
        case .timedOut: "Parsing took longer than the limit of \(options.timeLimit.map { "\($0)" } ?? "none")"
        default: "\(code)"
        }
    }

    // MARK: - Errors

    private struct LastError {
        var code: Int32
        var message: String
        var line: Int?
    }

    private static func lastError(of context: XMLParserContextHandle) -> LastError? {
        guard let error = xmlCtxtGetLastError(context.pointer) else { return nil }
        let code = error.pointee.code
        guard code != 0 else { return nil }
        let text = error.pointee.message.map { String(cString: $0) } ?? "libxml2 error \(code)"
        let line = Int(error.pointee.line)
        return LastError(
            code: code, message: text.trimmingCharacters(in: .whitespacesAndNewlines), line: line > 0 ? line : nil)
    }

    private static func failure(from context: XMLParserContextHandle) -> CastXMLError {
        guard let error = lastError(of: context) else {
            return CastXMLError(code: .malformed, message: "The document is not well-formed XML")
        }
        let code: CastXMLError.Code
        switch error.code {
        case Int32(XML_ERR_UNDECLARED_ENTITY.rawValue), Int32(XML_WAR_UNDECLARED_ENTITY.rawValue),
            Int32(XML_ERR_ENTITY_LOOP.rawValue), Int32(XML_ERR_ENTITY_BOUNDARY.rawValue):
            code = .forbiddenEntity
        default:
            code = error.message.contains("Excessive depth") ? .tooDeep : .malformed
        }
        return CastXMLError(code: code, message: error.message, line: error.line)
    }

    // MARK: - Conversion

    private struct Frame {
        var element: CastXMLElement
        var next: xmlNodePtr?
    }

    /// Copies the libxml2 tree into Swift values, iteratively (no recursion on depth), calling
    /// `checkDeadline` every 4 096 nodes.
    private static func convert(
        _ root: xmlNodePtr, document: XMLDocumentHandle, checkDeadline: () throws(CastXMLError) -> Void
    ) throws(CastXMLError) -> CastXMLElement {
        var stack = [Frame(element: element(root, document: document), next: root.pointee.children)]
        var visited = 0
        while !stack.isEmpty {
            visited += 1
            if visited & 4095 == 0 { try checkDeadline() }
            guard let node = stack[stack.count - 1].next else {
                let finished = stack.removeLast().element
                if stack.isEmpty { return finished }
                stack[stack.count - 1].element.children.append(.element(finished))
                continue
            }
            stack[stack.count - 1].next = node.pointee.next
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                stack.append(Frame(element: element(node, document: document), next: node.pointee.children))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                let text = node.pointee.content.map { String(cString: $0) } ?? ""
                appendText(text, to: &stack[stack.count - 1].element)
            case XML_ENTITY_REF_NODE:
                throw CastXMLError(code: .forbiddenEntity, message: "The document references an entity")
            default:
                continue  // comments, processing instructions
            }
        }
        return CastXMLElement(name: "")  // unreachable: the loop returns when the root frame closes
    }

    private static func appendText(_ text: String, to element: inout CastXMLElement) {
        if case .text(let previous)? = element.children.last {
            element.children[element.children.count - 1] = .text(previous + text)
        } else {
            element.children.append(.text(text))
        }
    }

    private static func element(_ node: xmlNodePtr, document: XMLDocumentHandle) -> CastXMLElement {
        let name = node.pointee.name.map { String(cString: $0) } ?? ""
        let namespace = node.pointee.ns
        var attributes: [CastXMLAttribute] = []
        var attribute = node.pointee.properties
        while let current = attribute {
            let attributeName = current.pointee.name.map { String(cString: $0) } ?? ""
            let attributeNamespace = current.pointee.ns?.pointee.href.map { String(cString: $0) }
            var value = ""
            if let raw = xmlNodeListGetString(document.pointer, current.pointee.children, 1) {
                value = String(cString: raw)
                castor_xml_free(raw)
            }
            attributes.append(CastXMLAttribute(name: attributeName, namespaceURI: attributeNamespace, value: value))
            attribute = current.pointee.next
        }
        return CastXMLElement(
            name: name,
            namespaceURI: namespace?.pointee.href.map { String(cString: $0) },
            prefix: namespace?.pointee.prefix.map { String(cString: $0) },
            attributes: attributes)
    }
}

/// The document's bytes as libxml2 pulls them (`xmlCtxtReadIO`): each chunk is scanned by the
/// structure guard, and the deadline checked, before libxml2 gets it. A limit passed or the deadline
/// reached ends the input with an error, so libxml2 stops within the chunk it has.
final class XMLInput {
    private let data: Data
    private var offset = 0
    private var structure: XMLStructureGuard
    private let timedOut: () -> Bool
    /// The limit passed, or `.timedOut`.
    private(set) var violation: CastXMLError.Code?

    init(data: Data, structure: XMLStructureGuard, timedOut: @escaping () -> Bool) {
        self.data = data
        self.structure = structure
        self.timedOut = timedOut
    }

    /// Hands libxml2 up to `length` more bytes; -1 (an I/O error for libxml2) once a limit is passed.
    private func read(into buffer: UnsafeMutablePointer<CChar>, length: Int) -> Int32 {
        guard violation == nil else { return -1 }
        if timedOut() {
            violation = .timedOut
            return -1
        }
        let count = min(length, data.count - offset)
        guard count > 0 else { return 0 }
        let found = data.withUnsafeBytes { bytes -> CastXMLError.Code? in
            let chunk = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
            if let code = structure.scan(chunk) { return code }
            chunk.copyBytes(to: UnsafeMutableRawBufferPointer(start: buffer, count: count))
            return nil
        }
        if let found {
            violation = found
            return -1
        }
        offset += count
        return Int32(count)
    }

    /// The `xmlInputReadCallback`.
    static let read: xmlInputReadCallback = { context, buffer, length in
        guard let context, let buffer, length > 0 else { return -1 }
        return Unmanaged<XMLInput>.fromOpaque(context).takeUnretainedValue().read(into: buffer, length: Int(length))
    }
}
