extension SessionStateMachine {
    /// The random numbers that spread the back-off delays (``CastReconnectPolicy/jitter``): a
    /// SplitMix64 sequence from a seed, so the machine stays a pure value and a test that seeds it
    /// gets the same delays on every run.
    struct Jitter: Sendable {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        /// The next number in 0..<1.
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Double(z >> 11) / Double(UInt64(1) << 53)
        }
    }
}
