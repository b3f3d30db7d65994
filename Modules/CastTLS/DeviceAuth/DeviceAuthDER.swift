/// One DER element: its tag, its content, and the whole encoding (header included).
struct DeviceAuthDERElement {
    let tag: UInt8
    let content: ArraySlice<UInt8>
    let encoding: ArraySlice<UInt8>
}

/// The DER elements that fill `bytes` exactly, in order; `nil` when the bytes are not a sequence of
/// complete definite-length elements with single-byte tags (all that certificates, names and the
/// extensions read here use). Lengths above 2^31 and non-minimal long forms are refused.
func deviceAuthDERElements(_ bytes: ArraySlice<UInt8>) -> [DeviceAuthDERElement]? {
    var elements: [DeviceAuthDERElement] = []
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
        guard bytes.endIndex - offset >= 2 else { return nil }
        let tag = bytes[offset]
        guard tag & 0x1F != 0x1F else { return nil }
        let first = bytes[offset + 1]
        var length = 0
        var contentStart = offset + 2
        if first >= 0x80 {
            let count = Int(first & 0x7F)
            guard (1...4).contains(count), bytes.endIndex - contentStart >= count else { return nil }
            for index in 0..<count { length = length << 8 | Int(bytes[contentStart + index]) }
            guard length >= 0x80, length < 1 << 31, count == 1 || bytes[contentStart] != 0 else { return nil }
            contentStart += count
        } else {
            length = Int(first)
        }
        guard bytes.endIndex - contentStart >= length else { return nil }
        let end = contentStart + length
        elements.append(DeviceAuthDERElement(tag: tag, content: bytes[contentStart..<end], encoding: bytes[offset..<end]))
        offset = end
    }
    return elements
}

/// One attribute of a distinguished name, compared the way RFC 5280 §7.1 (and BoringSSL's canonical
/// form) compares names: string values case-folded with leading, trailing and repeated inner
/// whitespace removed; other values byte for byte.
struct DeviceAuthNameAttribute: Hashable {
    let type: [UInt8]
    let canonicalText: String?
    let raw: [UInt8]

    static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.type == rhs.type else { return false }
        if let left = lhs.canonicalText, let right = rhs.canonicalText { return left == right }
        return lhs.raw == rhs.raw
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(type)
    }
}

/// A distinguished name as its relative distinguished names, in order, each a set of attributes.
/// `nil` when `der` (a `Name`: SEQUENCE OF SET OF SEQUENCE { OID, value }) is malformed.
func deviceAuthParseName(_ der: [UInt8]) -> [[DeviceAuthNameAttribute]]? {
    guard let outer = deviceAuthDERElements(der[...]), outer.count == 1, outer[0].tag == 0x30,
        let rdns = deviceAuthDERElements(outer[0].content)
    else { return nil }
    var result: [[DeviceAuthNameAttribute]] = []
    for rdn in rdns {
        guard rdn.tag == 0x31, let attributes = deviceAuthDERElements(rdn.content), !attributes.isEmpty else { return nil }
        var set: [DeviceAuthNameAttribute] = []
        for attribute in attributes {
            guard attribute.tag == 0x30, let parts = deviceAuthDERElements(attribute.content), parts.count == 2,
                parts[0].tag == 0x06
            else { return nil }
            let value = parts[1]
            let stringTags: Set<UInt8> = [0x0C, 0x13, 0x14, 0x16, 0x1A]  // UTF8, Printable, T61, IA5, Visible
            let text = stringTags.contains(value.tag) ? canonicalNameText(value.content) : nil
            set.append(DeviceAuthNameAttribute(type: Array(parts[0].content), canonicalText: text, raw: Array(value.encoding)))
        }
        result.append(set)
    }
    return result
}

/// Whether `name` lies inside the subtree `base` (RFC 5280 §4.2.1.10 directoryName: `base`'s RDNs are a prefix of `name`'s).
func deviceAuthNameIsWithin(_ name: [[DeviceAuthNameAttribute]], base: [[DeviceAuthNameAttribute]]) -> Bool {
    guard base.count <= name.count else { return false }
    for (constraint, actual) in zip(base, name) {
        guard constraint.count == actual.count, constraint.allSatisfy({ actual.contains($0) }) else { return false }
    }
    return true
}

private func canonicalNameText(_ bytes: ArraySlice<UInt8>) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ").lowercased()
}
