"""Mirroring benchmarks (make bench, section 8): latency and CPU of Cast Streaming senders, in one run.

Contenders, each against a fresh cast-receiver --mirror-record (whose receiving end Google's sender proves in
the interop tests):
  ours_test    castctl mirror test (a 1280x720 pattern, a 1 kHz tone: no decoding, the encoder alone)
  ours_file    castctl mirror CLIP (a 1280x720 30 fps H.264+AAC clip: ffmpeg decodes, libvpx and libopus encode)
  ours_audio   castctl audio --source test (sound alone, app 85CDB22F)
  opensreen    Google's Open Screen sender (cast-sender on PyPI) mirroring the same clip
  hls          the path Linux users have today (p-cast): ffmpeg's live HLS of the sound, AAC in 0.5 s segments,
               played where HLS clients play live, three target durations behind the playlist's end

Latency is the receiver's own measurement (session.json latencyMs): from the capture time each frame carries (the
sender's RTCP reports map its RTP clock to the wall clock this machine shares) to the frame being whole at the
receiver ("arrival") and to the time it is due on screen ("playout": the target delay, unless it came later).
For HLS, from a sound to the playlist listing the segment that holds it ("available"), and to where a client
plays it ("played", see hls()). CPU is user+system seconds of the sender process and its
children (ffmpeg) per second streamed, from getrusage.

Prints one JSON object: {"rounds": N, "results": {contender: [round, ...]}}.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_measured(command, timeout, env=None):
    """Runs command to its end; returns (exit status, stdout, stderr, CPU seconds of it and its children)."""
    before = children_cpu()
    process = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    return process.returncode, process.stdout, process.stderr, children_cpu() - before


class Receiver:
    """cast-receiver recording mirroring sessions into a folder of its own."""

    def __init__(self, binary, work, extra=()):
        self.folder = tempfile.mkdtemp(dir=work)
        self.root = os.path.join(self.folder, "root.pem")
        self.process = subprocess.Popen(
            [binary, "--mirror-record", os.path.join(self.folder, "rec"), "--mirror-idle-timeout", "2",
             "--export-trust-root", self.root, *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        deadline = time.monotonic() + 30
        self.port = None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            match = re.search(r"listening on [0-9.]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        if self.port is None:
            raise RuntimeError("cast-receiver did not start: " + "".join(self.lines))

    def session(self, timeout=20):
        """session.json of the first session, once the receiver wrote it (2 s after the last packet)."""
        path = os.path.join(self.folder, "rec", "session-1", "session.json")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(path):
                time.sleep(0.2)
                with open(path) as f:
                    return json.load(f)
            time.sleep(0.1)
        raise RuntimeError("no session.json from cast-receiver")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def latencies(session):
    result = {}
    for stream in session.get("streams", []):
        kind = "audio" if stream["codec"] in ("opus", "aac") else "video"
        result[kind] = dict(stream.get("latencyMs", {}), codec=stream["codec"], framesReceived=stream["framesReceived"],
                            framesLate=stream.get("framesLate", 0), framesDropped=stream.get("framesDropped", 0))
    return result


def ours(binary, receiver_binary, work, arguments, seconds):
    receiver = Receiver(receiver_binary, work)
    try:
        status, out, err, cpu = run_measured(
            [binary, *arguments, "--duration", str(seconds), "--host", "127.0.0.1", "--port", str(receiver.port)],
            timeout=seconds + 60)
        if status != 0:
            raise RuntimeError(f"castctl {' '.join(arguments)} exited {status}: {err[-2000:]}")
        session = receiver.session()
        return {"cpuSeconds": cpu, "streamedSeconds": seconds, "cpuPerSecond": cpu / seconds, **latencies(session)}
    finally:
        receiver.stop()


def openscreen(python, driver, receiver_binary, work, clip, seconds):
    receiver = Receiver(receiver_binary, work)
    try:
        status, out, err, cpu = run_measured(
            [python, driver, "--port", str(receiver.port), "--root", receiver.root, "--file", clip, "--codec", "vp8",
             "--seconds", str(seconds)], timeout=seconds + 90)
        done = [json.loads(line) for line in out.splitlines() if '"done"' in line]
        if status != 0 or not done or not done[-1].get("streamed"):
            raise RuntimeError(f"cast-sender did not stream (exit {status}): {err[-2000:]}")
        streamed = (done[-1].get("elapsed_us") or seconds * 1e6) / 1e6
        session = receiver.session()
        return {"cpuSeconds": cpu, "streamedSeconds": streamed, "cpuPerSecond": cpu / streamed, **latencies(session)}
    finally:
        receiver.stop()


def hls(ffmpeg, work, seconds, segment=0.5):
    """Live HLS of the desktop's sound as p-cast serves it (AAC at 256 kbit/s in 0.5 s segments), timed as it is made.

    "available": from a sound at any moment (onsets every 50 ms of stream time) to the playlist listing the segment
    that holds it. "played": where an HLS client plays live: no closer than three target durations from the end of
    the playlist (RFC 8216, section 6.3.3; the target duration is the whole seconds a segment can last, 1 here), so a
    sound plays 3 x EXT-X-TARGETDURATION after the playlist listed the segment that ends the live edge.
    """
    folder = tempfile.mkdtemp(dir=work)
    playlist = os.path.join(folder, "index.m3u8")
    process = subprocess.Popen(
        [ffmpeg, "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000",
         "-t", str(seconds), "-c:a", "aac", "-b:a", "256k", "-ac", "2", "-f", "hls", "-hls_time", str(segment),
         "-hls_list_size", "0", playlist], stderr=subprocess.PIPE)
    first_seen = {}
    target = None
    deadline = time.monotonic() + seconds + 30
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with open(playlist) as f:
                text = f.read()
        except FileNotFoundError:
            text = ""
        now = time.time()
        match = re.search(r"#EXT-X-TARGETDURATION:(\d+)", text)
        if match:
            target = int(match.group(1))
        for number, duration in enumerate(re.findall(r"#EXTINF:([0-9.]+)", text)):
            first_seen.setdefault(number, (now, float(duration)))
        time.sleep(0.002)
    process.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)
    if not first_seen or target is None:
        raise RuntimeError("ffmpeg's HLS listed no segment")
    # The wall time of stream time 0, taken as early as any segment allows (its end listed at once): favours HLS.
    segments = []
    start = 0.0
    for number in sorted(first_seen):
        available, duration = first_seen[number]
        segments.append((start, start + duration, available))
        start += duration
    origin = min(available - end for _, end, available in segments)
    lags = sorted((available - (origin + end)) * 1000 for _, end, available in segments)
    onsets = []
    moment = 0.0
    while moment < start:
        holder = next(s for s in segments if s[0] <= moment < s[1])
        onsets.append((holder[2] - (origin + moment)) * 1000)
        moment += 0.05
    onsets.sort()

    def percentile(values, fraction):
        return values[min(len(values) - 1, max(0, -int(-fraction * len(values) // 1) - 1))]

    hold = 3 * target * 1000
    return {"audio": {"codec": "aac", "segmentSeconds": segment, "targetDuration": target, "segments": len(segments),
                      "availableMedian": percentile(onsets, 0.5), "availableP95": percentile(onsets, 0.95),
                      "playoutMedian": percentile(lags, 0.5) + hold, "playoutP95": percentile(lags, 0.95) + hold}}


def middle(values):
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else None


def summarize(results):
    """Per contender, the median over rounds of each figure; then the ratios the issue sets goals for."""
    summary = {}
    for name, rounds in results.items():
        row = {}
        for kind in ("video", "audio"):
            for figure in ("arrivalMedian", "arrivalP95", "availableMedian", "availableP95", "playoutMedian", "playoutP95"):
                value = middle([r.get(kind, {}).get(figure) for r in rounds])
                if value is not None:
                    row[f"{kind}.{figure}"] = value
        cpu = middle([r.get("cpuPerSecond") for r in rounds])
        if cpu is not None:
            row["cpuPerSecond"] = cpu
        summary[name] = row
    audio = summary.get("ours_audio", {}).get("audio.playoutMedian")
    hls = summary.get("hls", {}).get("audio.playoutMedian")
    if audio and hls:
        summary["hlsOverOursAudioPlayout"] = hls / audio
    ours_cpu = summary.get("ours_file", {}).get("cpuPerSecond")
    theirs_cpu = summary.get("openscreen", {}).get("cpuPerSecond")
    if ours_cpu and theirs_cpu:
        summary["oursOverOpenScreenCPU"] = ours_cpu / theirs_cpu
    return summary


def print_table(summary, file):
    def cell(value, unit=" ms"):
        return f"{value:8.1f}{unit}" if isinstance(value, (int, float)) else " " * (8 + len(unit))

    print("\n== 8. mirroring: latency (ms, median of rounds) and CPU (s per s streamed)", file=file)
    print(f"   {'contender':<12} {'video arrival':>15} {'video p95':>11} {'audio arrival':>15} {'audio p95':>11} "
          f"{'audio played':>14} {'played p95':>12} {'CPU/s':>7}", file=file)
    for name in ("ours_test", "ours_file", "openscreen", "ours_audio", "hls"):
        row = summary.get(name, {})
        arrival = row.get("audio.arrivalMedian", row.get("audio.availableMedian"))
        arrival95 = row.get("audio.arrivalP95", row.get("audio.availableP95"))
        cpu = row.get("cpuPerSecond")
        print(f"   {name:<12} {cell(row.get('video.arrivalMedian')):>15} {cell(row.get('video.arrivalP95')):>11} "
              f"{cell(arrival):>15} {cell(arrival95):>11} {cell(row.get('audio.playoutMedian')):>14} "
              f"{cell(row.get('audio.playoutP95')):>12} {(f'{cpu:6.2f}' if cpu is not None else ''):>7}", file=file)
    if "hlsOverOursAudioPlayout" in summary:
        print(f"   HLS (p-cast's path) plays sound {summary['hlsOverOursAudioPlayout']:.1f}x later than castctl audio "
              f"(goal: at least 5x)", file=file)
    if "oursOverOpenScreenCPU" in summary:
        print(f"   CPU of castctl mirror FILE (720p30, ffmpeg decoding included) / Open Screen's sender on the same clip: "
              f"{summary['oursOverOpenScreenCPU']:.2f}", file=file)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--castctl", required=True)
    parser.add_argument("--receiver", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--driver", required=True, help="Tests/InteropTests/cast_sender_driver.py")
    parser.add_argument("--ffmpeg", default=shutil.which("ffmpeg"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--output", help="also write the report here (bench/mirroring.json)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="castor-mirror-bench-")
    try:
        clip = os.path.join(work, "clip-720p30.mp4")
        subprocess.run([args.ffmpeg, "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-f", "lavfi",
                        "-i", "sine=frequency=1000:sample_rate=48000", "-t", str(args.seconds + 10), "-c:v", "libx264",
                        "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip], check=True)
        results = {name: [] for name in ("ours_test", "ours_file", "ours_audio", "openscreen", "hls")}
        for round_number in range(1, args.rounds + 1):
            print(f"   mirroring round {round_number}", file=sys.stderr)
            results["ours_test"].append(ours(args.castctl, args.receiver, work,
                                             ["mirror", "test", "--size", "1280x720"], args.seconds))
            results["ours_file"].append(ours(args.castctl, args.receiver, work, ["mirror", clip], args.seconds))
            results["openscreen"].append(openscreen(args.python, args.driver, args.receiver, work, clip, args.seconds))
            results["ours_audio"].append(ours(args.castctl, args.receiver, work, ["audio", "--source", "test"], args.seconds))
            results["hls"].append(hls(args.ffmpeg, work, args.seconds))
        report = {"rounds": args.rounds, "seconds": args.seconds, "results": results, "summary": summarize(results)}
        if args.output:
            with open(args.output, "w") as f:
                json.dump(report, f, indent=1)
        print_table(report["summary"], file=sys.stderr)
        print(json.dumps(report))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
