/// One `range-spec` of an HTTP `Range: bytes=...` header (RFC 9110 §14.1.1), before it is applied to a size.
public enum ByteRangeSpec: Sendable, Hashable {
    /// `first-last`: bytes `first` through `last`, inclusive.
    case closed(first: Int64, last: Int64)
    /// `first-`: from `first` to the end.
    case from(first: Int64)
    /// `-length`: the last `length` bytes.
    case suffix(length: Int64)

    /// Whether this spec selects at least one byte of a representation of `size` bytes (RFC 9110 §14.1.1).
    public func isSatisfiable(size: Int64) -> Bool {
        switch self {
        case .closed(let first, _), .from(let first): first < size
        case .suffix(let length): length > 0
        }
    }

    /// The byte offsets selected in a representation of `size` bytes (upper bound exclusive), or `nil` when unsatisfiable
    /// or empty (a suffix of an empty representation selects nothing).
    public func resolved(size: Int64) -> Range<Int64>? {
        guard isSatisfiable(size: size), size > 0 else { return nil }
        switch self {
        case .closed(let first, let last): return first..<(min(last, size - 1) + 1)
        case .from(let first): return first..<size
        case .suffix(let length): return (size - min(length, size))..<size
        }
    }
}

/// What a server does with a `Range` header for a representation of a known size.
public enum ByteRangeResolution: Sendable, Hashable {
    /// Send the whole representation with 200: no header, a malformed one, another unit, or one the server ignores.
    case full
    /// Send these ranges with 206 (one range: a single part; several: `multipart/byteranges`), in this order.
    case partial([Range<Int64>])
    /// Send 416 with `Content-Range: bytes */SIZE`: no spec overlaps the representation.
    case unsatisfiable
}

/// Parsing and evaluation of HTTP byte ranges (RFC 9110 §14).
public enum HTTPByteRange {
    /// Headers with more range specs than this are ignored (RFC 9110 §14.2 lets a server ignore abusive range sets).
    public static let maximumSpecCount = 64

    /// Parses a `Range` header value.
    ///
    /// - Returns: the specs in order, or `nil` when the header must be ignored: a unit other than `bytes`,
    ///   a syntax error anywhere (such as `bytes=5-2`, `bytes=abc`, `bytes=`), or more than ``maximumSpecCount`` specs.
    public static func parse(_ header: String) -> [ByteRangeSpec]? {
        let bytes = Array(header.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let unit = String(decoding: bytes[..<equals], as: UTF8.self).trimmingOWS()
        guard unit.lowercased() == "bytes" else { return nil }
        var specs: [ByteRangeSpec] = []
        for element in bytes[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let item = trimOWS(element)
            if item.isEmpty { continue }  // empty list elements are allowed (RFC 9110 §5.6.1)
            guard let spec = parseSpec(item) else { return nil }
            specs.append(spec)
            if specs.count > maximumSpecCount { return nil }
        }
        return specs.isEmpty ? nil : specs
    }

    /// Decides how to answer a `Range` header for a representation of `size` bytes.
    ///
    /// Unsatisfiable specs are dropped; ranges that overlap or touch are coalesced (RFC 9110 §14.2 allows it),
    /// in which case the remaining ranges are sent in ascending order; otherwise the request order is kept.
    /// An empty representation cannot carry a 206, so a satisfiable suffix spec on it yields ``ByteRangeResolution/full``.
    public static func resolve(_ header: String?, size: Int64) -> ByteRangeResolution {
        guard let header, let specs = parse(header) else { return .full }
        return resolve(specs, size: size)
    }

    /// Decides how to answer parsed specs for a representation of `size` bytes (see the header-taking overload).
    public static func resolve(_ specs: [ByteRangeSpec], size: Int64) -> ByteRangeResolution {
        if specs.isEmpty { return .full }
        let ranges = specs.compactMap { $0.resolved(size: size) }
        if ranges.isEmpty {
            return specs.contains { $0.isSatisfiable(size: size) } ? .full : .unsatisfiable
        }
        return .partial(coalesced(ranges))
    }

    /// Merges overlapping or adjacent ranges. When nothing merges, the order is kept; otherwise the result is ascending.
    static func coalesced(_ ranges: [Range<Int64>]) -> [Range<Int64>] {
        guard ranges.count > 1 else { return ranges }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int64>] = [sorted[0]]
        for range in sorted.dropFirst() {
            let last = merged[merged.count - 1]
            if range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged.count == ranges.count ? ranges : merged
    }

    /// `bytes first-last/size` for a `Content-Range` header (`range` upper bound exclusive).
    public static func contentRange(_ range: Range<Int64>, size: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
    }

    /// `bytes */size`, the `Content-Range` of a 416 response.
    public static func unsatisfiedContentRange(size: Int64) -> String { "bytes */\(size)" }

    private static func parseSpec(_ item: ArraySlice<UInt8>) -> ByteRangeSpec? {
        guard let dash = item.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let firstDigits = item[..<dash]
        let lastDigits = item[(dash + 1)...]
        if firstDigits.isEmpty {
            guard let length = parseDigits(lastDigits) else { return nil }
            return .suffix(length: length)
        }
        guard let first = parseDigits(firstDigits) else { return nil }
        if lastDigits.isEmpty { return .from(first: first) }
        guard let last = parseDigits(lastDigits), last >= first else { return nil }
        return .closed(first: first, last: last)
    }

    /// `1*DIGIT`, saturating at `Int64.max` (a huge position is still a valid position).
    private static func parseDigits(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = (o1 || o2) ? .max : plus
        }
        return value
    }
}

func trimOWS(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
    while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
    return slice
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingOWS() -> String {
        String(decoding: trimOWS(ArraySlice(self.utf8)), as: UTF8.self)
    }
}
