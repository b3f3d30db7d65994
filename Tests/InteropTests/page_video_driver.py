"""catt and castctl cast the same web page (a <video> with a <source> and a <track>) to cast-receiver.

Run as root inside a private network namespace (catt talks only to port 8009):
    unshare -n -- python3 page_video_driver.py --receiver BIN --castctl BIN --catt CATT --venv-bin DIR --workdir DIR

Both resolve the page with yt-dlp (catt through its Python API, castctl by running yt-dlp -J); the receiver's
"fetch media" lines say which URL each one loaded. Prints one JSON object a line:
{"sender": "catt"|"castctl", "media": [...urls...], "tracks": [...urls...], "exit": N, "detail": "..."}, then {"done": true}.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import wait_for


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def make_page(workdir):
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=4:size=320x240:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=4", "-c:v", "libx264", "-preset", "ultrafast",
                    "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-movflags", "+faststart",
                    os.path.join(workdir, "clip.mp4")], check=True)
    with open(os.path.join(workdir, "subs.vtt"), "w") as handle:
        handle.write("WEBVTT\n\n00:00:00.500 --> 00:00:03.000\nHello from the page\n")
    with open(os.path.join(workdir, "page.html"), "w") as handle:
        handle.write('<!DOCTYPE html><html><head><title>Page video</title></head><body>\n'
                     '<video controls><source src="clip.mp4" type="video/mp4">'
                     '<track kind="subtitles" src="subs.vtt" srclang="en" label="English"></video>\n</body></html>\n')


def run_sender(name, command, args, environment):
    out = os.path.join(args.workdir, name + "-receiver.out")
    receiver = subprocess.Popen([args.receiver, "--name", "Page TV", "--port", "8009", "--fetch-media"],
                                stdout=open(out, "w"), stderr=subprocess.STDOUT)
    detail = ""
    code = None
    try:
        if not wait_for(lambda: "eureka_info on https" in read(out), 30):
            raise RuntimeError("cast-receiver did not start: " + read(out))
        sender = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment)
        wait_for(lambda: "fetch media" in read(out) or sender.poll() is not None, 150)
        # Let the text track be fetched (it follows the LOAD), then stop the sender.
        wait_for(lambda: "fetch textTrack" in read(out) or sender.poll() is not None, 10)
        if sender.poll() is None:
            sender.send_signal(2)
        try:
            detail, _ = sender.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            sender.kill()
            detail, _ = sender.communicate()
        code = sender.returncode
    finally:
        receiver.send_signal(2)
        try:
            receiver.wait(timeout=30)
        except subprocess.TimeoutExpired:
            receiver.kill()
    text = read(out)
    media = re.findall(r"fetch media (\S+)", text)
    tracks = re.findall(r"fetch textTrack (\S+)", text)
    print(json.dumps({"sender": name, "media": media, "tracks": tracks, "exit": code,
                      "detail": (detail or "")[-3000:] + "\n" + text[-2000:]}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--receiver", required=True)
    parser.add_argument("--castctl", required=True)
    parser.add_argument("--catt", required=True)
    parser.add_argument("--venv-bin", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    make_page(args.workdir)
    server = subprocess.Popen([sys.executable, "-m", "http.server", "8000", "--bind", "127.0.0.1", "--directory", args.workdir],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    environment = dict(os.environ, PATH=args.venv_bin + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
    page = "http://127.0.0.1:8000/page.html"
    try:
        import socket
        wait_for(lambda: socket.socket().connect_ex(("127.0.0.1", 8000)) == 0, 30)
        run_sender("catt", [args.catt, "-d", "127.0.0.1", "cast", page], args, environment)
        run_sender("castctl", [args.castctl, "cast", page, "--host", "127.0.0.1", "--port", "8009",
                               "--device-profile", "chromecast-3", "--timeout", "60"], args, environment)
    finally:
        server.kill()
        server.wait()
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # report, don't hide: the Swift test fails on it
        print(json.dumps({"exception": repr(error)}), flush=True)
        sys.exit(1)
