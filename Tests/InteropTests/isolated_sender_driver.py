#!/usr/bin/env python3
"""Runs cast-receiver and a third-party sender that needs the device's standard ports inside a
private network namespace, so parallel runs never collide on 8009/8008/8443/8010.

    unshare -n -- python3 isolated_sender_driver.py vlc  --receiver BIN --workdir DIR --user USER
    unshare -n -- python3 isolated_sender_driver.py catt --receiver BIN --workdir DIR --catt CATT

vlc:  VLC 3.0's chromecast stream output (as the unprivileged USER: VLC refuses root) casts a clip made
      by ffmpeg; VLC is driven through its remote-control interface: pause, resume, seek, stop.
catt: catt status, info, cast of a 10 s clip with subtitles (then seek and volume while it plays);
      the clip ends by itself and `catt cast` exits 0.

Prints one JSON object per check ({"check", "ok", "detail"}), every line cast-receiver printed as
{"receiver": line}, then {"done": true}. Every wait is bounded by a generous deadline.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import time

import sys
sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import report, wait_for, run


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def make_clip(workdir):
    clip = os.path.join(workdir, "clip.mp4")
    # moov after mdat (ffmpeg's default): the receiver needs a second range request for the duration.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=10:size=320x240:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=10", "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", clip], check=True)
    subtitles = os.path.join(workdir, "clip.srt")
    with open(subtitles, "w") as handle:
        handle.write("1\n00:00:00,500 --> 00:00:03,000\nHello from the interop test\n\n"
                     "2\n00:00:04,000 --> 00:00:08,000\nSecond line\n")
    os.chmod(workdir, 0o755)
    for path in (clip, subtitles):
        os.chmod(path, 0o644)
    return clip, subtitles


class Receiver:
    """cast-receiver on the namespace's loopback, at the device's standard ports."""

    def __init__(self, binary, workdir, extra=()):
        self.output = os.path.join(workdir, "receiver.out")
        self.log = os.path.join(workdir, "receiver.log")
        self.process = subprocess.Popen(
            [binary, "--name", "Isolated TV", "--port", "8009", "--fetch-media", "--log", self.log, *extra],
            stdout=open(self.output, "w"), stderr=subprocess.STDOUT)
        if not wait_for(lambda: "eureka_info on https" in read(self.output), 30):
            raise RuntimeError("cast-receiver did not start: " + read(self.output))

    def stop(self):
        self.process.send_signal(2)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        for line in read(self.output).splitlines():
            print(json.dumps({"receiver": line}), flush=True)
        return self.process.returncode

    def received(self, pattern):
        return re.search(pattern, read(self.log)) is not None


def run_vlc(args):
    clip, _ = make_clip(args.workdir)
    receiver = Receiver(args.receiver, args.workdir)
    vlc_log = os.path.join(args.workdir, "vlc.log")
    home = os.path.join(args.workdir, "vlc-home")
    os.makedirs(home, exist_ok=True)
    subprocess.run(["chown", args.user, home], check=True)
    os.chmod(args.workdir, 0o777)
    vlc = subprocess.Popen(
        ["runuser", "-u", args.user, "--", "env", f"HOME={home}", "cvlc", "-vv", clip,
         "--sout", "#chromecast{ip=127.0.0.1,port=8009}", "--demux-filter=demux_chromecast", "--play-and-exit",
         "--extraintf", "oldrc", "--rc-fake-tty", "--rc-host", "127.0.0.1:4212"],
        stdout=open(vlc_log, "w"), stderr=subprocess.STDOUT)

    def vlc_says(text):
        return text in read(vlc_log)

    def remote(command):
        with socket.create_connection(("127.0.0.1", 4212), timeout=10) as connection:
            connection.sendall((command + "\n").encode())
            time.sleep(0.3)

    try:
        report("device_auth", wait_for(lambda: receiver.received(r"deviceauth") and vlc_says("Loading content"), 60)
               and not vlc_says("Authentication error"), "VLC log: " + read(vlc_log)[-1500:])
        report("launch", wait_for(lambda: receiver.received(r'"type":"LAUNCH"') or receiver.received(r'"type": "LAUNCH"'), 30))
        report("load", wait_for(lambda: receiver.received(r'LOAD'), 30))
        report("fetch_vlc_stream", wait_for(lambda: re.search(r"fetch media http://127\.0\.0\.1:\d+/chromecast/.* → 200",
                                                              read(receiver.output)) is not None, 30), read(receiver.output))
        report("playing", wait_for(lambda: vlc_says("Player state: PLAYING"), 60))
        wait_for(lambda: os.path.exists(vlc_log) and "oldrc" in read(vlc_log), 10)
        remote("pause")
        report("pause", wait_for(lambda: vlc_says("Player state: PAUSED"), 30) and receiver.received(r"PAUSE"))
        remote("pause")
        report("resume", wait_for(lambda: receiver.received(r'"PLAY"'), 30))
        before = read(vlc_log).count("New mediaSessionId")
        remote("seek 5")
        # VLC seeks by restarting its stream: a new LOAD, a new media session, PLAYING again.
        report("seek", wait_for(lambda: read(vlc_log).count("Player state: PLAYING sessionId: 2") > 0
                                or receiver.received(r'"SEEK"'), 60), f"sessions before: {before}")
        remote("stop")
        # VLC sends STOP, then closes its virtual connections. VLC 3.0 sometimes loses its own STOP
        # ("failed to send message {"type":"STOP"…} (Interrupted system call)" in its log, the stop
        # interrupts its sending thread): then the CLOSE of its connection to the app is the stop.
        def vlc_stopped():
            if receiver.received(r'"STOP"'):
                return True
            lost = 'failed to send message {"type":"STOP"' in read(vlc_log)
            return lost and receiver.received(r'namespace=urn:x-cast:com\.google\.cast\.tp\.connection payload=\{"type":"CLOSE"\}')
        stopped = wait_for(vlc_stopped, 60)
        report("stop", stopped, "" if stopped else "receiver log: " + read(receiver.log)[-2500:] + "\nVLC log: "
               + "\n".join(line for line in read(vlc_log).splitlines() if "chromecast" in line or "oldrc" in line)[-2500:])
        report("vlc_exit", wait_for(lambda: vlc.poll() is not None, 60), vlc.poll())
    finally:
        if vlc.poll() is None:
            vlc.kill()
            vlc.wait()
        status = receiver.stop()
    report("receiver_exit", status == 0, status)


def run_catt(args):
    clip, subtitles = make_clip(args.workdir)
    receiver = Receiver(args.receiver, args.workdir)
    catt = [args.catt, "-d", "127.0.0.1"]

    def run(*extra, timeout=120):
        done = subprocess.run(catt + list(extra), capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout + done.stderr

    try:
        code, text = run("status")
        report("status", code == 0 and "Volume" in text, text)
        code, text = run("info")
        report("info", code == 0, text)
        cast = subprocess.Popen(catt + ["cast", "-s", subtitles, clip], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        playing = wait_for(lambda: receiver.received(r"LOAD") and "PLAYING" in run("status", timeout=60)[1], 60)
        report("cast_playing", playing)
        code, text = run("info")
        duration = re.search(r"duration: ([0-9.]+)", text)
        report("duration", code == 0 and duration is not None and abs(float(duration.group(1)) - 10) < 0.5, text)
        code, text = run("seek", "2")
        report("seek", code == 0, text)
        code, text = run("volume", "30")
        report("volume", code == 0 and wait_for(lambda: "Volume: 30" in run("status", timeout=60)[1], 30), text)
        try:
            output, _ = cast.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            cast.kill()
            output, _ = cast.communicate()
        report("cast_ends_by_itself", cast.returncode == 0, output)
        report("subtitles_fetched", re.search(r"fetch textTrack .*\.vtt → 200", read(receiver.output)) is not None,
               read(receiver.output))
        report("duration_probe", re.search(r"fetch probe .* → 206", read(receiver.output)) is not None
               and "duration 10" in read(receiver.output), read(receiver.output))
    finally:
        status = receiver.stop()
    report("receiver_exit", status == 0, status)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("peer", choices=["vlc", "catt"])
    parser.add_argument("--receiver", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--user", default="castor-interop")
    parser.add_argument("--catt", default="catt")
    args = parser.parse_args()
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    if args.peer == "vlc":
        run_vlc(args)
    else:
        run_catt(args)
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    run(main)
