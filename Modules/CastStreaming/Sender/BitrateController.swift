/// Chooses the video bit rate from what the receiver's feedback says, once a second: down by a fifth
/// when the receiver reports more than 5 % of packets lost or frames had to be refused for lack of
/// acknowledgements, up by a tenth when acknowledged bytes kept pace with the rate, within the
/// session's limits.
public struct BitrateController: Sendable {
    /// The lowest rate chosen, in bits per second.
    public let minimum: Int
    /// The highest rate chosen, in bits per second.
    public let maximum: Int
    /// The rate now, in bits per second.
    public private(set) var current: Int
    /// How often the rate is reconsidered.
    public static let window = Duration.seconds(1)

    private var windowStart: Duration?
    private var acknowledgedAtStart = 0
    private var refusedAtStart = 0

    /// A controller starting at `initial` within `minimum…maximum`.
    public init(minimum: Int, maximum: Int, initial: Int) {
        self.minimum = max(1, minimum)
        self.maximum = max(self.minimum, maximum)
        current = min(max(initial, self.minimum), self.maximum)
    }

    /// Reconsiders the rate from the sender's counters; returns the new rate when it changed.
    public mutating func update(at now: Duration, statistics: StreamSender.Statistics) -> Int? {
        guard let start = windowStart else {
            windowStart = now
            acknowledgedAtStart = statistics.bytesAcknowledged
            refusedAtStart = statistics.framesRefused
            return nil
        }
        let elapsed = now - start
        guard elapsed >= Self.window else { return nil }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let goodput = Double(statistics.bytesAcknowledged - acknowledgedAtStart) * 8 / seconds
        let refused = statistics.framesRefused > refusedAtStart
        windowStart = now
        acknowledgedAtStart = statistics.bytesAcknowledged
        refusedAtStart = statistics.framesRefused
        let previous = current
        if statistics.fractionLost > 13 || refused {
            current = max(minimum, Int(Double(current) * 0.8))
        } else if goodput >= 0.8 * Double(current) {
            current = min(maximum, Int(Double(current) * 1.1))
        }
        return current == previous ? nil : current
    }
}
