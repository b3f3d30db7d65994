/// An `http://` URL split into what an HTTP/1.1 client needs.
package struct HTTPURL: Sendable, Hashable {
    /// The host to connect to (an IPv6 literal without brackets).
    package var host: String
    package var port: Int
    /// The `Host` header: the authority as written.
    package var authority: String
    /// The request target: path and query, `/` when empty; the fragment is dropped.
    package var target: String

    /// Parses `http://host[:port][/path][?query][#fragment]`; `nil` for other schemes, user info,
    /// an empty host or a bad port.
    package init?(parsing text: String) {
        guard text.lowercased().hasPrefix("http://") else { return nil }
        var rest = Substring(text.dropFirst("http://".count))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@"),
            !target.contains(where: { $0 == " " || $0.isNewline || $0 == "\t" })
        else { return nil }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        var port = 80
        if let portText {
            guard let parsed = Int(portText), (1...65_535).contains(parsed) else { return nil }
            port = parsed
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0.isNewline }) else { return nil }
        self.host = String(host)
        self.port = port
        self.authority = String(authority)
        self.target = target
    }
}
