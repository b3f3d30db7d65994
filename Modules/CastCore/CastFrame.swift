/// The CASTV2 framing rules: a 4-byte big-endian length, then that many bytes of `CastMessage`.
public enum CastFrame {
    /// The largest body a frame may carry, in bytes (65 536, as Chrome and openscreen enforce).
    public static let maxBodySize = 65_536
    /// The size of the length header, in bytes.
    public static let headerSize = 4
}
