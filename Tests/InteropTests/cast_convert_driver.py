#!/usr/bin/env python3
"""VLC 3's chromecast output and castctl casting the same file to the same emulated device, inside a private
network namespace (the device's standard ports: Cast 8009, eureka_info 8008; VLC serves its stream on 8010).

    unshare -n -- python3 cast_convert_driver.py vlc     --receiver BIN --castctl BIN --workdir DIR --movie FILE --profile P --user USER
    unshare -n -- python3 cast_convert_driver.py castctl --receiver BIN --castctl BIN --workdir DIR --movie FILE --profile P
    unshare -n -- python3 cast_convert_driver.py bench   --receiver BIN --castctl BIN --workdir DIR --user USER --rounds N
                                                         --direct F --remux F --transcode F --profile P

vlc:     VLC casts MOVIE to `cast-receiver --profile P --fetch-media`; ffprobe reads the stream VLC served (the last
         URL the device fetched from VLC) while VLC plays; reports its codecs ({"check": "vlc_codecs", ...}).
castctl: castctl casts MOVIE (without --device-profile it takes the profile from the model eureka_info names);
         reports the plan's source line and what ffprobe reads from the served URL.
bench:   time from starting the sender to PLAYING (castctl's status line, VLC's "Player state: PLAYING"), for each
         file and sender, ROUNDS times; then CPU seconds (the sender and its children, from wait4) per minute of the
         TRANSCODE file converted, the device's player reading everything either sender serves. Prints one JSON
         object per measurement ({"measure": ...}).

Prints {"check", "ok", "detail"} objects, each receiver line as {"receiver": line}, then {"done": true}. Every wait
has a deadline.
"""
import argparse
import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import sys
sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import report, wait_for, run


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


class Receiver:
    """cast-receiver on the namespace's loopback at the device's standard ports, printing its fetches."""

    def __init__(self, binary, workdir, profile):
        self.output = os.path.join(workdir, f"receiver-{time.time_ns()}.out")
        self.process = subprocess.Popen(
            [binary, "--name", "Convert TV", "--port", "8009", "--fetch-media"] + (["--profile", profile] if profile != "any" else []),
            stdout=open(self.output, "w"), stderr=subprocess.STDOUT)
        if not wait_for(lambda: "eureka_info on" in read(self.output) or self.process.poll() is not None, 30) \
                or self.process.poll() is not None:
            raise RuntimeError("cast-receiver did not start: " + read(self.output))

    def lines(self):
        return read(self.output).splitlines()

    def stop(self, echo=True):
        self.process.send_signal(2)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if echo:
            for line in self.lines():
                print(json.dumps({"receiver": line}), flush=True)


def ffprobe_codecs(url):
    done = subprocess.run(["ffprobe", "-v", "error", "-rw_timeout", "20000000", "-print_format", "json",
                           "-show_streams", "-show_format", url], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return None, done.stderr
    report_ = json.loads(done.stdout)
    codecs = {}
    for stream in report_.get("streams", []):
        codecs.setdefault(stream.get("codec_type", "?"), []).append(stream.get("codec_name", "?"))
    return codecs, report_.get("format", {}).get("format_name")


class Timed:
    """A sender started now whose output lines are read as they come, each with its arrival time."""

    def __init__(self, command, log):
        self.started = time.monotonic()
        self.lines = []
        self.lock = threading.Lock()
        self.log = open(log, "w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.lock:
                self.lines.append((time.monotonic(), line))
            self.log.write(line + "\n")
            self.log.flush()

    def first(self, pattern, timeout):
        """Seconds from start to the first line matching `pattern`, or None."""
        end = time.time() + timeout
        regex = re.compile(pattern)
        while time.time() < end:
            with self.lock:
                for at, line in self.lines:
                    if regex.search(line):
                        return at - self.started
            if self.exited() and not self.reader.is_alive():
                break
            time.sleep(0.005)
        return None

    def exited(self):
        """Whether the sender has exited, without reaping it (its rusage is read when it is reaped, in stop)."""
        try:
            return os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def tree_cpu_seconds(self):
        """CPU seconds of the sender's process tree still running (utime+stime+cutime+cstime of each process whose
        ancestor it is), read from /proc: for VLC, which runuser starts as a child it does not wait for when stopped."""
        ticks = os.sysconf("SC_CLK_TCK")
        parents = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    fields = read(f"/proc/{name}/stat").rsplit(")", 1)[1].split()
                    parents[int(name)] = (int(fields[1]), sum(int(v) for v in fields[11:15]))
                except (IndexError, ValueError):
                    pass
        total, frontier = 0, {self.process.pid}
        while frontier:
            total += sum(parents[pid][1] for pid in frontier if pid in parents)
            frontier = {pid for pid, (parent, _) in parents.items() if parent in frontier}
        return total / ticks

    def text(self):
        with self.lock:
            return "\n".join(line for _, line in self.lines)

    def descendants(self):
        """The pids of the sender's process tree below it (VLC under runuser)."""
        parents = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    parents[int(name)] = int(read(f"/proc/{name}/stat").rsplit(")", 1)[1].split()[1])
                except (IndexError, ValueError):
                    pass
        found, frontier = set(), {self.process.pid}
        while frontier:
            frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
            found |= frontier
        return found

    def stop(self, signal_number=2, timeout=60, tree=False):
        """Stops the sender; returns (exit status, CPU seconds of it and its reaped children). Its whole tree is
        signalled and waited for (runuser does not wait for VLC), so the next sender finds port 8010 free."""
        below = self.descendants() if tree else set()
        if not self.exited():
            self.process.send_signal(signal_number)
        for pid in below:
            try:
                os.kill(pid, signal_number)
            except ProcessLookupError:
                pass
        wait_for(lambda: not any(os.path.exists(f"/proc/{pid}") and "Z" not in read(f"/proc/{pid}/stat").rsplit(")", 1)[-1][:3]
                                 for pid in below), timeout)
        end = time.time() + timeout
        while True:
            pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            if pid:
                self.process.returncode = os.waitstatus_to_exitcode(status)
                return self.process.returncode, usage.ru_utime + usage.ru_stime
            if time.time() > end:
                os.kill(self.process.pid, 9)
            time.sleep(0.02)


def vlc_command(args, movie, log_user_home):
    return ["runuser", "-u", args.user, "--", "env", f"HOME={log_user_home}", "cvlc", "-vv", movie,
            "--sout", "#chromecast{ip=127.0.0.1,port=8009}", "--demux-filter=demux_chromecast", "--play-and-exit",
            # Without a user interface the "this conversion could drain your battery" question gets no answer and
            # VLC gives up converting; a user who said "don't warn me again" has this setting.
            "--sout-chromecast-show-perf-warning=0",
            # Software decoding: headless, VLC picks a hardware surface its converters cannot hand to x264.
            "--avcodec-hw=none"]


def castctl_command(args, movie, extra=()):
    return [args.castctl, "cast", movie, "--host", "127.0.0.1", "--port", "8009", "--timeout", "60", *extra]


def prepare_user_files(args, *paths):
    os.chmod(args.workdir, 0o777)
    for path in paths:
        os.chmod(path, 0o644)
    home = os.path.join(args.workdir, "vlc-home")
    os.makedirs(home, exist_ok=True)
    subprocess.run(["chown", args.user, home], check=True)
    return home


def vlc_stream_urls(receiver):
    return [m.group(1) for line in receiver.lines()
            for m in [re.search(r"fetch media (http://127\.0\.0\.1:8010/\S+)", line)] if m]


def run_vlc(args):
    home = prepare_user_files(args, args.movie)
    # VLC 3.0.24's fallback after a refused LOAD (copy HEVC, then convert) does not always recover: in about one run in
    # six here it builds the converting chain and never loads again. It gets three tries, each with a fresh device.
    for attempt in range(1, 4):
        receiver = Receiver(args.receiver, args.workdir, args.profile)
        vlc = Timed(vlc_command(args, args.movie, home), os.path.join(args.workdir, f"vlc-{attempt}.log"))
        try:
            playing = vlc.first(r"Player state: PLAYING", 60)
            if playing is None and attempt < 3:
                continue
            report("vlc_playing", playing is not None, f"try {attempt}: " + vlc.text()[-2000:])
            urls = vlc_stream_urls(receiver)
            report("vlc_fetched", bool(urls), "\n".join(receiver.lines()[-20:]))
            if urls:
                codecs, container = ffprobe_codecs(urls[-1])
                report("vlc_codecs", codecs is not None, json.dumps({"codecs": codecs, "container": container,
                                                                     "loads": len(urls), "tries": attempt}))
            return
        finally:
            vlc.stop(signal_number=15, tree=True)
            receiver.stop()


def run_castctl(args):
    receiver = Receiver(args.receiver, args.workdir, args.profile)
    extra = ["--device-profile", args.device_profile] if args.device_profile else []
    castctl = Timed(castctl_command(args, args.movie, extra), os.path.join(args.workdir, "castctl.log"))
    try:
        playing = castctl.first(r"^PLAYING", 120)
        report("castctl_playing", playing is not None, castctl.text()[-3000:])
        planned = re.search(r"castctl: planning for (\S+) .* from (.*)", castctl.text())
        report("castctl_profile", planned is not None, planned.group(0) if planned else castctl.text()[-2000:])
        served = re.search(r"^  .*?(http://\S+)$", castctl.text(), re.M)
        if served:
            codecs, container = ffprobe_codecs(served.group(1))
            report("castctl_codecs", codecs is not None, json.dumps({"codecs": codecs, "container": container}))
    finally:
        castctl.stop()
        receiver.stop()


def read_everything(url, limit_seconds=600):
    """Reads an HTTP stream (VLC's) or every segment of an HLS playlist (castctl's) to its end, as the device's
    player would; returns the bytes read."""
    total = 0
    end = time.time() + limit_seconds
    if url.endswith(".m3u8"):
        base = url.rsplit("/", 1)[0]
        media = urllib.request.urlopen(base + "/media.m3u8", timeout=120).read().decode()
        names = [line for line in media.splitlines() if line and not line.startswith("#")]
        maps = re.findall(r'#EXT-X-MAP:URI="([^"]+)"', media)
        for name in maps[:1] + names:
            if time.time() > end:
                break
            total += len(urllib.request.urlopen(base + "/" + name, timeout=120).read())
        return total
    with urllib.request.urlopen(url, timeout=120) as response:
        while time.time() < end:
            chunk = response.read(1 << 16)
            if not chunk:
                break
            total += len(chunk)
    return total


def fetch_first(url):
    """What a device's player fetches first: an HLS stream's media playlist, first initialization section and first
    segment; a file's first 64 KiB."""
    if url.endswith(".m3u8"):
        base = url.rsplit("/", 1)[0]
        media = urllib.request.urlopen(base + "/media.m3u8", timeout=120).read().decode()
        names = [line for line in media.splitlines() if line and not line.startswith("#")]
        maps = re.findall(r'#EXT-X-MAP:URI="([^"]+)"', media)
        for name in maps[:1] + names[:1]:
            urllib.request.urlopen(base + "/" + name, timeout=120).read()
    else:
        request = urllib.request.Request(url, headers={"Range": "bytes=0-65535"})
        urllib.request.urlopen(request, timeout=120).read()


def run_bench(args):
    home = prepare_user_files(args, args.direct, args.remux, args.transcode)
    files = {"direct": args.direct, "remux": args.remux, "transcode": args.transcode}
    for round_ in range(1, args.rounds + 1):
        for kind, movie in files.items():
            for sender in ("castctl", "vlc"):
              # VLC gets three tries (see run_vlc); each try is a fresh device and a fresh start of the clock.
              for tries in range(1, 4):
                receiver = Receiver(args.receiver, args.workdir, args.profile)
                command = castctl_command(args, movie) if sender == "castctl" else vlc_command(args, movie, home)
                log = os.path.join(args.workdir, f"{sender}-{kind}-{round_}-{tries}.log")
                run = Timed(command, log)
                pattern = r"^PLAYING" if sender == "castctl" else r"Player state: PLAYING"
                seconds = run.first(pattern, 120)
                first_media = seconds
                if sender == "castctl" and seconds is not None:
                    # The emulated device says PLAYING once it has read the playlists' CODECS; a device's player then
                    # fetches the first segment, which ffmpeg must have made. VLC's PLAYING already includes the
                    # device reading VLC's first 64 KiB.
                    served = re.search(r"^  .*?(http://\S+)$", run.text(), re.M)
                    if served:
                        fetch_first(served.group(1))
                        first_media = time.monotonic() - run.started
                run.stop(signal_number=2 if sender == "castctl" else 15, tree=sender == "vlc")
                receiver.stop(echo=False)
                if seconds is None and sender == "vlc" and tries < 3:
                    continue
                fetched = [line for line in receiver.lines() if "fetch " in line]
                print(json.dumps({"measure": "to_playing", "sender": sender, "file": kind, "round": round_, "tries": tries,
                                  "seconds": seconds, "first_media_seconds": first_media, "fetches": fetched[-6:]}), flush=True)
                break
    # CPU per minute of media converted: each sender converts the whole transcode file while the device's player
    # (here) reads all it serves.
    duration = float(subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                     args.transcode], capture_output=True, text=True).stdout.strip())
    for round_ in range(1, args.cpu_rounds + 1):
        for sender in ("castctl", "vlc"):
          for tries in range(1, 4):
            receiver = Receiver(args.receiver, args.workdir, args.profile)
            command = castctl_command(args, args.transcode) if sender == "castctl" else \
                vlc_command(args, args.transcode, home)
            run = Timed(command, os.path.join(args.workdir, f"{sender}-cpu-{round_}-{tries}.log"))
            started = time.monotonic()
            seconds = run.first(r"^PLAYING" if sender == "castctl" else r"Player state: PLAYING", 180)
            url = None
            if sender == "castctl":
                served = re.search(r"^  .*?(http://\S+)$", run.text(), re.M)
                url = served.group(1) if served else None
            else:
                urls = vlc_stream_urls(receiver)
                url = urls[-1] if urls else None
            read = read_everything(url) if (url and seconds is not None) else 0
            wall = time.monotonic() - started
            tree_cpu = run.tree_cpu_seconds()
            status, cpu = run.stop(signal_number=2 if sender == "castctl" else 15, tree=sender == "vlc")
            if sender == "vlc":
                cpu = max(cpu, tree_cpu)  # runuser does not wait for VLC when stopped: read VLC's own before stopping
            receiver.stop(echo=False)
            if not read and sender == "vlc" and tries < 3:
                continue
            print(json.dumps({"measure": "cpu", "sender": sender, "round": round_, "tries": tries, "cpu_seconds": cpu,
                              "media_seconds": duration, "bytes_read": read, "wall_seconds": wall,
                              "cpu_per_media_minute": cpu / (duration / 60) if read else None}), flush=True)
            break


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["vlc", "castctl", "bench"])
    parser.add_argument("--receiver", required=True)
    parser.add_argument("--castctl", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--movie")
    parser.add_argument("--profile", default="chromecast-3")
    parser.add_argument("--device-profile", help="castctl's --device-profile (castctl mode); by default from eureka_info")
    parser.add_argument("--user", default="castor-interop")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cpu-rounds", type=int, default=1)
    parser.add_argument("--direct")
    parser.add_argument("--remux")
    parser.add_argument("--transcode")
    args = parser.parse_args()
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    {"vlc": run_vlc, "castctl": run_castctl, "bench": run_bench}[args.mode](args)
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    run(main)
