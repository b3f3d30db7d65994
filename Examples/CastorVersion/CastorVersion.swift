/// The version of the Castor programs and the commit they were built from, as `--version` prints
/// them. The values are generated from git at build time (scripts/version.sh, run by the
/// CastorVersionPlugin build plugin before every build).
public enum CastorVersion {
    /// The version: the newest tag vX.Y.Z (0.0.0 without one), with +gitN for N commits after it.
    public static var version: String { generatedVersion }
    /// The abbreviated commit hash, with -dirty when the tree had uncommitted changes.
    public static var commit: String { generatedCommit }
    /// The commit's date, YYYY-MM-DD.
    public static var date: String { generatedDate }

    /// `0.0.0+git597 (commit 935805aef3d5, 2026-11-28)`: what `--version` prints.
    public static var description: String { "\(version) (commit \(commit), \(date))" }
}
