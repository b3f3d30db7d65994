import Foundation

/// Third-party test data committed under `Tests/PeerData/` (each folder has an `ORIGIN.md` with its
/// source and licence): messages real devices sent, captured by senders we did not write.
public enum PeerData {
    /// `Tests/PeerData/` in this checkout.
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/PeerData").standardizedFileURL

    /// The statuses chromecast-java-api-v2 captured from real devices.
    public enum ChromecastJavaAPI {
        /// Their folder.
        public static let directory = PeerData.directory.appendingPathComponent("chromecast-java-api-v2")

        /// The MEDIA_STATUS captures.
        public static let mediaStatusFiles = [
            "mediaStatus-chromecast-audio.json", "mediaStatus-with-videoinfo.json", "mediaStatus-pandora.json",
            "mediaStatus-single.json", "mediaStatus-audio-with-extraStatus.json", "mediaStatus-with-idleReason.json",
            "mediaStatus-without-idleReason.json", "mediaStatus-no-metadataType.json", "mediaStatus-unknown-metadataType.json",
        ]

        /// The RECEIVER_STATUS captures.
        public static let receiverStatusFiles = [
            "status-backdrop-1.18.json", "status-backdrop-1.19.json", "status-backdrop-1.28.json",
            "status-chrome-mirroring-1.19.json", "status-chrome-mirroring-1.28.json", "status-spotify.json",
        ]

        /// The path of one capture.
        public static func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

        /// The text of one capture, as committed.
        public static func text(_ file: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
        }
    }
}
