extension Duration {
    /// The duration in seconds for messages: `"10 s"`, `"0.25 s"`, `"10.005 s"` (at most three decimals).
    package var castDescription: String {
        let milliseconds = components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
        let whole = milliseconds / 1000
        var fraction = String(abs(milliseconds % 1000))
        guard fraction != "0" else { return "\(whole) s" }
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(milliseconds < 0 && whole == 0 ? "-" : "")\(whole).\(fraction) s"
    }
}
