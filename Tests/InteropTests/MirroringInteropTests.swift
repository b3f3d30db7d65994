import CastJSON
import CastTestSupport
import Foundation
import Synchronization
import Testing

/// Google's Cast Streaming sender (Open Screen's `cast/standalone_sender`, on PyPI as `cast-sender`)
/// mirrors a clip to `cast-receiver`: device authentication with the root the receiver exported,
/// LAUNCH of the mirroring app, OFFER/ANSWER, RTP/RTCP with AES-CTR, and what arrived recorded and
/// decoded by ffmpeg. Outside CI a missing sender skips the tests; in CI it fails them.
@Suite("Interop: Open Screen's Cast Streaming sender mirrors to cast-receiver", .serialized)
struct MirroringInteropTests {
    static let hasCastSender = Peers.hasPackage("cast_sender", for: TestPaths.python)

    @Test("VP8 with Opus for 10 s: ffmpeg decodes the recording (frames, 320x240, a 1 kHz tone), no violations",
          .enabled(if: Peers.inCI || (hasCastSender && Peers.ffmpeg != nil), "needs cast-sender in the venv and ffmpeg: run `make test`"))
    func vp8() async throws { try await mirror(codec: "vp8") }

    @Test("VP9 with Opus for 10 s: ffmpeg decodes the recording (frames, 320x240, a 1 kHz tone), no violations",
          .enabled(if: Peers.inCI || (hasCastSender && Peers.ffmpeg != nil), "needs cast-sender in the venv and ffmpeg: run `make test`"))
    func vp9() async throws { try await mirror(codec: "vp9") }

    @Test("VP8 through a relay that drops 5 % of the sender's datagrams: NACKs sent, retransmissions received, still decodes",
          .enabled(if: Peers.inCI || (hasCastSender && Peers.ffmpeg != nil), "needs cast-sender in the venv and ffmpeg: run `make test`"))
    func lossy() async throws { try await mirror(codec: "vp8", loss: 0.05) }

    // MARK: The run

    func mirror(codec: String, loss: Double? = nil) async throws {
        let python = try #require(TestPaths.python, "no Python venv: run `make test`")
        let work = try MirroringFixture.directory()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = try await MirroringFixture.clip()
        let root = work.appendingPathComponent("root.pem").path
        let recordings = work.appendingPathComponent("recordings").path
        var extra = ["--export-trust-root", root, "--mirror-record", recordings, "--mirror-video-codecs", "vp8,vp9",
                     "--mirror-idle-timeout", "2"]
        var relay: ChildProcess?
        if let loss {
            let udpPort = Int.random(in: RestartablePort.belowEphemeral)
            let started = try ChildProcess(python, [Self.script("udp_lossy_relay.py"), "--target", "\(udpPort)", "--loss", "\(loss)"])
            relay = started
            let line = try #require(await started.waitForLine { $0.contains("\"port\"") }, "the relay did not start: \(started.errorOutput)")
            let relayPort = try #require(try JSONValue(parsing: line)["port"]?.intValue)
            extra += ["--mirror-port", "\(udpPort)", "--mirror-answer-port", "\(relayPort)"]
        }
        let receiver = try await ReceiverProcess.start(extra)
        let driver = try ChildProcess(python, [Self.script("cast_sender_driver.py"), "--port", "\(receiver.port)", "--root", root,
                                               "--file", clip.path, "--codec", codec, "--seconds", "10"])
        #expect(await driver.waitForExit() == 0, "cast-sender: \(driver.output) \(driver.errorOutput.suffix(3000))")
        let done = try #require(driver.output.last { $0.contains("\"done\"") }.map { try JSONValue(parsing: $0) })
        let elapsedMicroseconds = try #require(done["elapsed_us"]?.doubleValue, "the sender never streamed: \(driver.errorOutput.suffix(3000))")
        #expect(elapsedMicroseconds >= 9_000_000, "the sender reports \(elapsedMicroseconds) µs of streaming")
        // The session ends 2 s after the last packet (the receiver's idle timeout).
        let ended = await receiver.child.waitForLine { $0.contains("mirroring session 1 ended") }
        #expect(ended != nil, "\(receiver.child.output)")
        let relayCounts: JSONValue?
        if let relay {
            _ = await relay.terminate()
            relayCounts = try relay.output.last { $0.contains("dropped") }.map { try JSONValue(parsing: $0) }
        } else {
            relayCounts = nil
        }
        let (_, violations, violationLines) = await receiver.stopAndCountViolations()
        #expect(violations == 0, "\(violationLines)")

        let session = URL(fileURLWithPath: recordings).appendingPathComponent("session-1")
        let summary = try JSONValue(parsing: String(contentsOf: session.appendingPathComponent("session.json"), encoding: .utf8))
        let streams = try #require(summary["streams"]?.arrayValue)
        let video = try #require(streams.first { $0["codec"]?.stringValue == codec }, "\(summary)")
        let audio = try #require(streams.first { $0["codec"]?.stringValue == "opus" }, "\(summary)")

        // Video: ffmpeg decodes at least 60 % of the frames the sender numbered (those the receiver completed plus
        // those it gave up on), at 320x240. Counting frame IDs, not 30 fps of wall time, keeps a loaded machine (where
        // the sender encodes fewer frames) from failing a receiver that lost nothing.
        let videoFile = session.appendingPathComponent(try #require(video["file"]?.stringValue)).path
        let probe = try await runProgram(Peers.ffmpeg!.replacingOccurrences(of: "ffmpeg", with: "ffprobe"), [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
            "-of", "json", videoFile])
        let probed = try JSONValue(parsing: probe.stdout.joined(separator: "\n"))["streams"]?[0]
        #expect(probed?["codec_name"]?.stringValue == codec)
        #expect(probed?["width"]?.intValue == 320 && probed?["height"]?.intValue == 240, "\(String(describing: probed))")
        let decoded = Double(probed?["nb_read_frames"]?.stringValue.flatMap(Int.init) ?? 0)
        let sent = Double((video["framesReceived"]?.intValue ?? 0) + (video["framesDropped"]?.intValue ?? 0))
        #expect(sent >= 30, "the sender numbered \(sent) frames in \(elapsedMicroseconds) µs; \(summary)")
        #expect(decoded >= 0.6 * sent, "decoded \(decoded) of \(sent) frames sent; \(summary)")

        // Audio: the Ogg/Opus recording decodes to a tone whose energy is at 1 kHz.
        let audioFile = session.appendingPathComponent(try #require(audio["file"]?.stringValue)).path
        let tone = try await MirroringFixture.toneEnergies(audioFile, at: [500, 1_000, 2_000])
        #expect(tone[1_000]! > 50 * max(tone[500]!, tone[2_000]!), "energies \(tone)")

        if let relayCounts {
            #expect((relayCounts["dropped"]?.intValue ?? 0) > 0, "\(relayCounts)")
            let asked = (video["retransmissionsRequested"]?.intValue ?? 0) + (audio["retransmissionsRequested"]?.intValue ?? 0)
            let got = (video["retransmissionsReceived"]?.intValue ?? 0) + (audio["retransmissionsReceived"]?.intValue ?? 0)
            #expect(asked > 0 && got > 0, "NACKed \(asked), retransmitted \(got); relay \(relayCounts); \(summary)")
        }
    }

    static func script(_ name: String) -> String {
        TestPaths.packageRoot.appendingPathComponent("Tests/InteropTests/\(name)").path
    }
}

/// The clip the mirroring tests stream (made once per run by ffmpeg) and what they measure in recordings.
enum MirroringFixture {
    private static let made = Mutex<URL?>(nil)

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("castor-mirroring-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// 12 s of a 320x240, 30 fps test pattern with a 1 kHz tone (H.264 + AAC in MP4): what the sender decodes and re-encodes.
    static func clip() async throws -> URL {
        if let url = made.withLock({ $0 }), FileManager.default.fileExists(atPath: url.path) { return url }
        let ffmpeg = try #require(Peers.ffmpeg, "ffmpeg is not installed")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("castor-mirroring-clip-\(getpid()).mp4")
        let result = try await runProgram(ffmpeg, [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-f", "lavfi", "-i",
            "sine=frequency=1000:sample_rate=48000", "-t", "12", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
            "-shortest", url.path])
        guard result.status == 0 else { throw HarnessError(message: "ffmpeg could not make the clip: \(result.stderr)") }
        made.withLock { $0 = url }
        return url
    }

    /// The energy of the decoded audio at each frequency (Goertzel over one second after `seconds`, mono, 48 kHz).
    static func toneEnergies(_ file: String, at frequencies: [Double], skipping seconds: Int = 0) async throws -> [Double: Double] {
        let ffmpeg = try #require(Peers.ffmpeg)
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("castor-tone-\(UUID().uuidString).s16")
        defer { try? FileManager.default.removeItem(at: raw) }
        let result = try await runProgram(ffmpeg, ["-v", "error", "-y", "-i", file, "-f", "s16le", "-ac", "1", "-ar", "48000", raw.path])
        guard result.status == 0 else { throw HarnessError(message: "ffmpeg could not decode \(file): \(result.stderr)") }
        let data = try Data(contentsOf: raw)
        let samples: [Double] = data.withUnsafeBytes { buffer in
            buffer.bindMemory(to: Int16.self).dropFirst(48_000 * seconds).prefix(48_000).map { Double(Int16(littleEndian: $0)) }
        }
        var energies: [Double: Double] = [:]
        for frequency in frequencies {
            let k = 2 * cos(2 * Double.pi * frequency / 48_000)
            var (a, b) = (0.0, 0.0)
            for x in samples { (a, b) = (x + k * a - b, a) }
            energies[frequency] = a * a + b * b - k * a * b
        }
        return energies
    }
}
