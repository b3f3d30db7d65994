import CastJSON
import CastTestSupport
import Foundation
import Synchronization
import Testing

/// Our Cast Streaming sender (`castctl mirror`, `castctl audio`) against `cast-receiver`, whose receiving
/// end Google's own sender proved first (MirroringInteropTests): what arrived is recorded and ffmpeg, not our
/// code, says whether it decodes, how many frames, at what size, and at what pitch.
@Suite("Interop: castctl mirrors to cast-receiver (its receiver proven by Open Screen's sender)", .serialized)
struct MirroringSenderInteropTests {
    static let enabled = Peers.inCI || Peers.ffmpeg != nil

    /// What one run left: castctl's exit and JSON lines, the session summary the receiver wrote, its folder.
    final class Run {
        var status: Int32
        var events: [JSONValue]
        var stderr: String
        var summary: JSONValue
        var session: URL
        var relay: JSONValue?
        var receiverLines: [String]

        /// The run's folder (recordings), removed with the run.
        var work: URL

        init(status: Int32, events: [JSONValue], stderr: String, summary: JSONValue, session: URL, relay: JSONValue?,
             receiverLines: [String], work: URL) {
            self.status = status
            self.events = events
            self.stderr = stderr
            self.summary = summary
            self.session = session
            self.relay = relay
            self.receiverLines = receiverLines
            self.work = work
        }

        deinit { try? FileManager.default.removeItem(at: work) }

        func stream(_ codec: String) -> JSONValue? {
            summary["streams"]?.arrayValue?.first { $0["codec"]?.stringValue == codec }
        }
        var ended: JSONValue? { events.last { $0["event"]?.stringValue == "ended" } }
    }

    @Test("castctl mirror test, VP8 + Opus for 8 s: ffprobe reads at least 60 % of the 240 frames at 320x240, the sound is 1 kHz",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func vp8() async throws {
        let run = try await mirror(["mirror", "test", "--size", "320x240", "--duration", "8"])
        try await expectDecodes(run, codec: "vp8", frames: 240)
        #expect(run.receiverLines.contains { $0.contains("mirroring takes vp8, h264, vp9, hevc, av1") }, "\(run.receiverLines)")
    }

    @Test("castctl mirror test --codec vp9 to an Ultra: the ANSWER takes VP9 and ffprobe decodes it",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func vp9OnUltra() async throws {
        let run = try await mirror(["mirror", "test", "--size", "320x240", "--duration", "6", "--codec", "vp9"], receiver: ["--profile", "ultra"])
        try await expectDecodes(run, codec: "vp9", frames: 180)
    }

    @Test("castctl mirror test --codec h264 to a 3rd generation Chromecast: OpenH264's Constrained Baseline, decoded by ffprobe",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func h264() async throws {
        let run = try await mirror(["mirror", "test", "--size", "320x240", "--duration", "6", "--codec", "h264"],
                                   receiver: ["--profile", "chromecast-3"])
        try await expectDecodes(run, codec: "h264", frames: 180)
        let video = try #require(run.stream("h264"), "\(run.summary)")
        let file = run.session.appendingPathComponent(try #require(video["file"]?.stringValue)).path
        let ffprobe = try #require(Peers.ffmpeg).replacingOccurrences(of: "ffmpeg", with: "ffprobe")
        let probe = try await runProgram(ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile", "-of", "json", file])
        let profile = try JSONValue(parsing: probe.stdout.joined(separator: "\n"))["streams"]?[0]?["profile"]?.stringValue
        #expect(profile == "Constrained Baseline", "\(String(describing: profile))")
    }

    @Test("castctl mirror --codec vp9 to a 3rd generation Chromecast: the device ANSWERs without video and castctl says so, exit 1",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func vp9Refused() async throws {
        let work = try MirroringFixture.directory()
        defer { try? FileManager.default.removeItem(at: work) }
        let receiver = try await ReceiverProcess.start(["--profile", "chromecast-3"])
        let result = try await runProgram(TestPaths.program("castctl"), [
            "mirror", "test", "--no-audio", "--codec", "vp9", "--duration", "3", "--host", "127.0.0.1", "--port", "\(receiver.port)"])
        let (_, violations, violationLines) = await receiver.stopAndCountViolations()
        let lines = receiver.child.output
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("offered video vp9"), "\(result.stderr)")
        // The one violation is the refusal itself, recorded as every refused request is.
        #expect(violations == 1, "\(violationLines)")
        #expect(violationLines.contains { $0.contains("[refusedRequest]") && $0.contains("Failed to select any streams") }, "\(violationLines)")
        #expect(lines.contains { $0.contains("mirroring takes vp8, h264 up to 1920x1080") }, "\(lines)")
    }

    @Test("castctl audio --source test for 6 s: the audio mirroring app, one Opus stream, a 1 kHz tone in what ffmpeg decodes",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func audioAlone() async throws {
        let run = try await mirror(["audio", "--source", "test", "--duration", "6"])
        #expect(run.status == 0, "\(run.stderr)")
        let streams = try #require(run.summary["streams"]?.arrayValue)
        #expect(streams.map { $0["codec"]?.stringValue } == ["opus"], "\(run.summary)")
        #expect(run.summary["appId"]?.stringValue == "85CDB22F", "\(run.summary)")
        #expect(run.receiverLines.contains { $0.contains("negotiated (app 85CDB22F): audio opus") }, "\(run.receiverLines)")
        let audio = try #require(run.stream("opus"))
        let file = run.session.appendingPathComponent(try #require(audio["file"]?.stringValue)).path
        let tone = try await MirroringFixture.toneEnergies(file, at: [500, 1_000, 2_000])
        #expect(tone[1_000]! > 50 * max(tone[500]!, tone[2_000]!), "energies \(tone)")
        let sent = try #require(run.ended?["statistics"]?["audio"]?["framesSent"]?.intValue, "\(run.events)")
        #expect(sent >= 300, "castctl sent \(sent) audio frames in 6 s of 10 ms frames")
    }

    @Test("castctl mirror through a relay that drops 5 % of datagrams: the receiver NACKs, castctl retransmits, ffprobe still decodes",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func lossy() async throws {
        let run = try await mirror(["mirror", "test", "--size", "320x240", "--duration", "8"], loss: 0.05)
        try await expectDecodes(run, codec: "vp8", frames: 240)
        let relay = try #require(run.relay)
        #expect((relay["dropped"]?.intValue ?? 0) > 0, "\(relay)")
        // Over both streams: when the frames are one packet each (a low bit rate on a busy machine), a lost video
        // frame is often recovered by the sender's kickstart (its last packet sent again before the device NACKs),
        // as Open Screen's sender does; the audio's lost frames are NACKed.
        let streams = try #require(run.summary["streams"]?.arrayValue, "\(run.summary)")
        let asked = streams.reduce(0) { $0 + ($1["retransmissionsRequested"]?.intValue ?? 0) }
        let received = streams.reduce(0) { $0 + ($1["retransmissionsReceived"]?.intValue ?? 0) }
        let statistics = try #require(run.ended?["statistics"], "\(run.events)")
        let retransmitted = (statistics["video"]?["retransmissions"]?.intValue ?? 0) + (statistics["audio"]?["retransmissions"]?.intValue ?? 0)
        #expect(asked > 0 && received > 0, "receiver NACKed \(asked), got \(received) again; streams \(streams); relay \(relay); castctl \(statistics)")
        #expect(retransmitted > 0, "castctl retransmitted \(retransmitted); \(statistics)")
    }

    // MARK: Real sources: the X11 screen, the desktop's sound, a file

    static let hasXvfb = FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb")
    static let hasPulseAudio = FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/pactl")

    @Test("castctl mirror screen --no-audio against an Xvfb screen of 640x480: ffprobe reads 640x480 frames from the recording",
          .enabled(if: Peers.inCI || (enabled && hasXvfb), "needs Xvfb and ffmpeg: run `make test`"))
    func screen() async throws {
        let display = try await XvfbDisplay.start(width: 640, height: 480)
        defer { display.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display.name
        let run = try await mirror(["mirror", "screen", "--no-audio", "--duration", "5"], environment: environment)
        let video = try #require(run.stream("vp8"), "\(run.summary) \(run.stderr)")
        let file = run.session.appendingPathComponent(try #require(video["file"]?.stringValue)).path
        let ffprobe = try #require(Peers.ffmpeg).replacingOccurrences(of: "ffmpeg", with: "ffprobe")
        let probe = try await runProgram(ffprobe, [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
            "-of", "json", file])
        let probed = try JSONValue(parsing: probe.stdout.joined(separator: "\n"))["streams"]?[0]
        #expect(probed?["width"]?.intValue == 640 && probed?["height"]?.intValue == 480, "\(String(describing: probed))")
        #expect((probed?["nb_read_frames"]?.stringValue.flatMap(Int.init) ?? 0) >= 30, "\(String(describing: probed))")
        #expect(run.summary["streams"]?.arrayValue?.count == 1, "--no-audio sends no sound: \(run.summary)")
    }

    @Test("castctl audio with PulseAudio's null sink as the default and a 1 kHz tone played into it: the recording is the tone",
          .enabled(if: Peers.inCI || (enabled && hasPulseAudio), "needs pulseaudio, pactl and ffmpeg: run `make test`"))
    func desktopSound() async throws {
        let pulse = try await PulseAudioServer.start()
        defer { pulse.stop() }
        // The desktop plays a tone (ffmpeg into the default sink) for longer than castctl listens.
        let player = try ChildProcess(try #require(Peers.ffmpeg), [
            "-v", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000", "-t", "20", "-f", "pulse", "default"],
            environment: pulse.environment)
        defer { Task { _ = await player.terminate() } }
        let run = try await mirror(["audio", "--duration", "6"], environment: pulse.environment)
        #expect(run.status == 0, "\(run.stderr)")
        let audio = try #require(run.stream("opus"), "\(run.summary)")
        let file = run.session.appendingPathComponent(try #require(audio["file"]?.stringValue)).path
        let tone = try await MirroringFixture.toneEnergies(file, at: [500, 1_000, 2_000], skipping: 1)
        #expect(tone[1_000]! > 50 * max(tone[500]!, tone[2_000]!), "energies \(tone)")
    }

    @Test("castctl mirror FILE: the file's pictures and sound at its own pace, 320x240 and 1 kHz in the recording",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func file() async throws {
        let clip = try await MirroringFixture.clip()
        let run = try await mirror(["mirror", clip.path, "--duration", "5"])
        try await expectDecodes(run, codec: "vp8", frames: 150)
    }

    // MARK: The run

    func mirror(
        _ arguments: [String], receiver extra: [String] = [], loss: Double? = nil, environment: [String: String]? = nil
    ) async throws -> Run {
        let work = try MirroringFixture.directory()
        var handedOver = false
        defer { if !handedOver { try? FileManager.default.removeItem(at: work) } }
        let recordings = work.appendingPathComponent("recordings").path
        var receiverArguments = extra + ["--mirror-record", recordings, "--mirror-idle-timeout", "2"]
        var relay: ChildProcess?
        if let loss {
            let python = try #require(TestPaths.python, "no Python venv: run `make test`")
            let udpPort = Int.random(in: RestartablePort.belowEphemeral)
            let started = try ChildProcess(python, [MirroringInteropTests.script("udp_lossy_relay.py"), "--target", "\(udpPort)", "--loss", "\(loss)"])
            relay = started
            let line = try #require(await started.waitForLine { $0.contains("\"port\"") }, "the relay did not start: \(started.errorOutput)")
            let relayPort = try #require(try JSONValue(parsing: line)["port"]?.intValue)
            receiverArguments += ["--mirror-port", "\(udpPort)", "--mirror-answer-port", "\(relayPort)"]
        }
        let receiver = try await ReceiverProcess.start(receiverArguments)
        let result = try await runProgram(TestPaths.program("castctl"), arguments + ["--json", "--host", "127.0.0.1", "--port", "\(receiver.port)"],
                                          environment: environment)
        let ended = await receiver.child.waitForLine { $0.contains("mirroring session 1 ended") }
        #expect(ended != nil, "\(receiver.child.output)")
        var relayCounts: JSONValue?
        if let relay {
            _ = await relay.terminate()
            relayCounts = try relay.output.last { $0.contains("dropped") }.map { try JSONValue(parsing: $0) }
        }
        let (_, violations, violationLines) = await receiver.stopAndCountViolations()
        let lines = receiver.child.output
        #expect(violations == 0, "\(violationLines)")
        #expect(result.status == 0, "castctl: \(result.stdout) \(result.stderr)")
        let session = URL(fileURLWithPath: recordings).appendingPathComponent("session-1")
        let summary = try JSONValue(parsing: String(contentsOf: session.appendingPathComponent("session.json"), encoding: .utf8))
        let events = result.stdout.compactMap { try? JSONValue(parsing: $0) }
        handedOver = true
        return Run(status: result.status, events: events, stderr: result.stderr, summary: summary, session: session, relay: relayCounts,
                   receiverLines: lines, work: work)
    }

    /// ffprobe decodes at least 60 % of `frames` (what castctl's test pattern makes in the duration) at 320x240,
    /// castctl's own count agrees, and the Opus recording is a 1 kHz tone.
    func expectDecodes(_ run: Run, codec: String, frames: Int) async throws {
        let video = try #require(run.stream(codec), "\(run.summary)")
        let file = run.session.appendingPathComponent(try #require(video["file"]?.stringValue)).path
        let ffprobe = try #require(Peers.ffmpeg).replacingOccurrences(of: "ffmpeg", with: "ffprobe")
        let probe = try await runProgram(ffprobe, [
            "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
            "-of", "json", file])
        let probed = try JSONValue(parsing: probe.stdout.joined(separator: "\n"))["streams"]?[0]
        #expect(probed?["codec_name"]?.stringValue == codec, "\(String(describing: probed))")
        #expect(probed?["width"]?.intValue == 320 && probed?["height"]?.intValue == 240, "\(String(describing: probed))")
        let decoded = probed?["nb_read_frames"]?.stringValue.flatMap(Int.init) ?? 0
        #expect(Double(decoded) >= 0.6 * Double(frames), "ffprobe decoded \(decoded) of \(frames) frames; \(run.summary)")
        // Frames come after they were captured (the sender's reports map its RTP clock to the shared wall clock;
        // sampling that clock costs the mapping a millisecond or so either way), and are due on screen no earlier
        // than they came. A capture time counted from another origin than the session's was tens of ms off.
        let latency = try #require(video["latencyMs"], "\(run.summary)")
        #expect((latency["arrivalMedian"]?.doubleValue ?? -100) > -5, "\(latency)")
        #expect((latency["playoutMedian"]?.doubleValue ?? -1) >= (latency["arrivalMedian"]?.doubleValue ?? 0), "\(latency)")
        let sent = run.ended?["statistics"]?["video"]?["framesSent"]?.intValue ?? 0
        #expect(decoded <= sent, "more frames decoded (\(decoded)) than castctl says it sent (\(sent))")
        if let audio = run.stream("opus") {
            let audioFile = run.session.appendingPathComponent(try #require(audio["file"]?.stringValue)).path
            let tone = try await MirroringFixture.toneEnergies(audioFile, at: [500, 1_000, 2_000])
            #expect(tone[1_000]! > 50 * max(tone[500]!, tone[2_000]!), "energies \(tone)")
        }
    }
}

/// An X virtual framebuffer on a free display number, for the screen-capture test.
struct XvfbDisplay {
    let name: String
    let process: ChildProcess

    static func start(width: Int, height: Int) async throws -> XvfbDisplay {
        var failures: [String] = []
        for _ in 0..<5 {
            let number = Int.random(in: 100...899)
            guard !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") else { continue }
            // -displayfd: Xvfb writes the display number once it accepts clients.
            let process = try ChildProcess("/usr/bin/Xvfb", [":\(number)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp",
                                                             "-displayfd", "1"])
            if await process.waitForLine(where: { $0.trimmingCharacters(in: .whitespaces) == "\(number)" }) != nil {
                return XvfbDisplay(name: ":\(number)", process: process)
            }
            _ = await process.terminate()
            failures.append(process.errorOutput)
        }
        throw HarnessError(message: "Xvfb did not start: \(failures)")
    }

    func stop() { Task { [process] in _ = await process.terminate() } }
}

/// A PulseAudio server of the test's own (its runtime folder, a null sink as the default), as a desktop has.
struct PulseAudioServer {
    let runtime: URL
    let process: ChildProcess
    /// What a client of this server needs: `XDG_RUNTIME_DIR` (and `PULSE_SERVER`) pointing at it.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["PULSE_SERVER"] = "unix:" + runtime.appendingPathComponent("pulse/native").path
        environment["HOME"] = runtime.path
        return environment
    }

    static func start() async throws -> PulseAudioServer {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("castor-pulse-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["HOME"] = runtime.path
        let process = try ChildProcess("/usr/bin/pulseaudio", [
            "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes",
            "--load=module-native-protocol-unix", "--load=module-null-sink sink_name=castor_desktop", "--log-target=stderr"],
            environment: environment)
        let server = PulseAudioServer(runtime: runtime, process: process)
        // Ready once pactl sees the null sink as the default.
        for _ in 0..<100 {
            let info = try await runProgram("/usr/bin/pactl", ["get-default-sink"], environment: server.environment)
            if info.status == 0, info.stdout.first == "castor_desktop" { return server }
            try await Task.sleep(for: .milliseconds(100))
        }
        _ = await process.terminate()
        throw HarnessError(message: "pulseaudio did not start: \(process.errorOutput.suffix(2000))")
    }

    func stop() {
        Task { [process, runtime] in
            _ = await process.terminate()
            try? FileManager.default.removeItem(at: runtime)
        }
    }
}

/// castctl mirror when the device goes away in the middle: a loss, then a new session once it is back.
@Suite("Interop: castctl mirror reconnects to a device that was lost", .serialized)
struct MirroringReconnectInteropTests {
    static var enabled: Bool { MirroringSenderInteropTests.enabled }

    func events(_ castctl: ChildProcess) -> [JSONValue] { castctl.output.compactMap { try? JSONValue(parsing: $0) } }

    @Test("cast-receiver killed while castctl mirrors, then started again on its port: castctl reports the loss, reconnects, mirrors again and ends at --duration with status 0",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func aDeviceThatComesBackGetsANewSession() async throws {
        let loss = CastctlConnectionLossTests()
        let receiver = try await RestartablePort.start { try await loss.startReceiver(port: $0) }
        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "mirror", "test", "--size", "160x120", "--duration", "8", "--json", "--reconnect-timeout", "60",
            "--host", "127.0.0.1", "--port", String(receiver.port)])
        // waitForLine's predicate runs under the process's lock (castctl.output cannot be read in it): it counts.
        let seen = Mutex<[String: Int]>([:])
        func event(_ name: String, after count: Int = 0) async -> Bool {
            seen.withLock { $0[name] = 0 }
            return await castctl.waitForLine { line in
                guard (try? JSONValue(parsing: line))?["event"]?.stringValue == name else { return false }
                return seen.withLock { seen in
                    seen[name, default: 0] += 1
                    return seen[name]! > count
                }
            } != nil
        }
        #expect(await event("started"), "\(castctl.output) \(castctl.errorOutput)")
        _ = await receiver.child.terminate(signal: SIGKILL)
        #expect(await event("lost"), "\(castctl.output) \(castctl.errorOutput)")
        let restarted = try await loss.startReceiver(port: receiver.port, id: receiver.id)
        #expect(await event("started", after: 1), "\(castctl.output) \(castctl.errorOutput); the device: \(restarted.port) \(restarted.child.output)")
        let status = await castctl.waitForExit()
        #expect(status == 0, "\(castctl.output) \(castctl.errorOutput)")
        let lost = events(castctl).first { $0["event"]?.stringValue == "lost" }
        #expect(lost?["reason"]?.stringValue?.contains("deviceLost") == true, "\(String(describing: lost))")
        #expect(events(castctl).last?["event"]?.stringValue == "ended", "\(castctl.output)")
        // The device that came back ran a mirroring session of its own, and the sender ended it.
        #expect(restarted.child.output.contains { $0.contains("mirroring session 1 ended") }, "\(restarted.child.output)")
        _ = await restarted.child.terminate()
    }

    @Test("--reconnect-timeout 0: a device killed while castctl mirrors is lost for good, exit 3",
          .enabled(if: enabled, "needs ffmpeg: run `make test`"))
    func withoutReconnectingALossIsExit3() async throws {
        let receiver = try await CastctlConnectionLossTests().startReceiver()
        let castctl = try ChildProcess(TestPaths.program("castctl"), [
            "mirror", "test", "--no-audio", "--size", "160x120", "--duration", "30", "--reconnect-timeout", "0",
            "--host", "127.0.0.1", "--port", String(receiver.port)])
        #expect(await castctl.waitForLine { $0.contains("castctl: mirroring") } != nil, "\(castctl.output) \(castctl.errorOutput)")
        _ = await receiver.child.terminate(signal: SIGKILL)
        let status = await castctl.waitForExit()
        #expect(status == 3, "\(castctl.output) \(castctl.errorOutput)")
        #expect(castctl.errorOutput.contains("lost the device"), "\(castctl.errorOutput)")
    }
}
