import CastJSON
import CastTestSupport
import Foundation
import Testing

/// pychromecast (a sender we did not write) loads ffmpeg-made files, served by Python's own
/// `http.server` (a server without byte ranges), into `cast-receiver --profile chromecast-3
/// --fetch-media`: the HEVC file fails with the LOAD_FAILED pychromecast reports to its listener
/// (`load_media_failed(itemId, 104)`), the H.264 file plays, and the receiver's fetch lines name what
/// it found.
@Suite("Interop: pychromecast against a device profile")
struct PychromecastProfileInteropTests {
    static let ffmpeg = Peers.executable("/usr/bin/ffmpeg")
    static let ready = Peers.hasVenvPychromecast && ffmpeg != nil

    static let driver = #"""
        import http.server, json, socketserver, sys, threading, time, uuid
        import pychromecast
        from pychromecast.controllers.media import MediaStatusListener

        port, device_id, folder = int(sys.argv[1]), sys.argv[2], sys.argv[3]

        def report(name, ok, detail=""):
            print(json.dumps({"check": name, "ok": bool(ok), "detail": str(detail)}), flush=True)

        class Files(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=folder, **kwargs)
            def log_message(self, *args):
                pass

        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Files)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"

        class Listener(MediaStatusListener):
            def __init__(self):
                self.failures = []
            def new_media_status(self, status):
                pass
            def load_media_failed(self, item_id, error_code):
                self.failures.append((item_id, error_code))

        def wait_for(predicate, timeout=15.0):
            end = time.time() + timeout
            while time.time() < end:
                if predicate():
                    return True
                time.sleep(0.05)
            return False

        cast = pychromecast.get_chromecast_from_host(
            ("127.0.0.1", port, uuid.UUID(device_id), "Chromecast", "Profile TV"), tries=3, retry_wait=1, timeout=10)
        cast.wait(timeout=15)
        listener = Listener()
        mc = cast.media_controller
        mc.register_status_listener(listener)
        mc.play_media(base + "/hevc.mp4", "video/mp4", stream_type="BUFFERED")
        report("hevc_refused", wait_for(lambda: listener.failures), listener.failures)
        report("hevc_code_104", listener.failures[:1] == [(1, 104)], listener.failures)
        mc.play_media(base + "/h264.mp4", "video/mp4", stream_type="BUFFERED")
        report("h264_plays", wait_for(lambda: mc.status.player_state == "PLAYING" and mc.status.content_id.endswith("h264.mp4")),
               (mc.status.player_state, mc.status.content_id, mc.status.duration))
        report("h264_duration", wait_for(lambda: mc.status.duration is not None and abs(mc.status.duration - 1.0) < 0.1),
               mc.status.duration)
        cast.quit_app()
        cast.disconnect(timeout=5)
        server.shutdown()
        print(json.dumps({"done": True}), flush=True)
        """#

    @Test(.enabled(if: ready || Peers.inCI, "needs ffmpeg and the venv's pychromecast: run `make test` (scripts/bootstrap.sh test)"))
    func hevcIsRefusedByAChromecast3() async throws {
        let python = try #require(TestPaths.python, "the venv's python is missing (scripts/bootstrap.sh test)")
        let ffmpeg = try #require(Self.ffmpeg, "ffmpeg is missing (scripts/bootstrap.sh)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("castor-profile-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sources = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=1", "-f", "lavfi", "-i", "sine=duration=1"]
        for (name, codec) in [("hevc.mp4", ["-c:v", "libx265", "-x265-params", "log-level=error", "-tag:v", "hvc1"]),
                              ("h264.mp4", ["-c:v", "libx264"])] {
            let made = try await runProgram(
                ffmpeg, ["-v", "error", "-nostdin", "-y"] + sources + codec
                    + ["-preset", "ultrafast", "-c:a", "aac", "-movflags", "+faststart", folder.appendingPathComponent(name).path])
            try #require(made.status == 0, "ffmpeg: \(made.stderr)")
        }
        let script = folder.appendingPathComponent("driver.py")
        try Data(Self.driver.utf8).write(to: script)
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3", "--fetch-media"])
        let result = try await runProgram(python, [script.path, String(receiver.port), receiver.id, folder.path])
        let stopped = await receiver.stopAndCountViolations()
        var checks: [String: (ok: Bool, detail: String)] = [:]
        for line in result.stdout {
            guard let json = try? JSONValue(parsing: line), let name = json["check"]?.stringValue else { continue }
            checks[name] = (json["ok"]?.boolValue ?? false, json["detail"]?.stringValue ?? "")
        }
        #expect(result.status == 0, "driver failed: \(result.stderr.suffix(2000))")
        for name in ["hevc_refused", "hevc_code_104", "h264_plays", "h264_duration"] {
            #expect(checks[name]?.ok == true, "\(name): \(checks[name]?.detail ?? "not reported")")
        }
        let output = receiver.child.output
        #expect(output.contains { $0.contains("profile chromecast-3 (Chromecast (3rd generation))") }, "\(output)")
        let refusal = output.first { $0.contains("fetch media") && $0.contains("hevc.mp4") }
        #expect(refusal?.contains("hevc Main") == true, "\(output)")
        #expect(refusal?.contains("unsupportedMedia: hevc video is not decoded by Chromecast (3rd generation)") == true, "\(refusal ?? "")")
        // Python's http.server answers a range request with the whole file and no Accept-Ranges.
        #expect(output.contains { $0.contains("h264.mp4") && $0.contains("no byte ranges") && $0.contains("h264 Constrained Baseline") }, "\(output)")
        #expect(stopped.violations == 0, "\(stopped.lines)")
    }
}
