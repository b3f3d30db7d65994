"""Mirrors a media file to a Cast receiver with Google's Open Screen sender (PyPI `cast-sender`).

Prints one JSON line when done: {"event": "done", "streamed": bool, "elapsed_us": N}, where elapsed_us
is the sender's own report of how long it has streamed (microseconds since its first frame).
Everything it waits for is bounded: the first frame must be sent within --start-timeout seconds.
"""
import argparse
import json
import sys
import time

import cast_sender


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root", required=True, help="PEM of the root that vouches for the device")
    parser.add_argument("--file", required=True)
    parser.add_argument("--codec", default="vp8")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--no-audio", action="store_true")
    parser.add_argument("--start-timeout", type=float, default=20)
    args = parser.parse_args()

    env = cast_sender.CastRuntime()
    sender = cast_sender.CastSender(env=env, ip_address=args.host, port=args.port, cert_path=args.root)
    config = cast_sender.StreamConfig()
    config.file_path = args.file
    config.codec_name = args.codec
    config.should_include_audio = not args.no_audio
    if not sender.stream_video(config=config, is_debug=False):
        print(json.dumps({"event": "done", "streamed": False, "elapsed_us": None}), flush=True)
        return 1
    deadline = time.monotonic() + args.start_timeout
    elapsed = sender.get_streaming_elapsed_time_us()
    while (elapsed is None or elapsed < 0) and time.monotonic() < deadline:
        time.sleep(0.05)
        elapsed = sender.get_streaming_elapsed_time_us()
    streamed = elapsed is not None and elapsed >= 0
    if streamed:
        print(json.dumps({"event": "streaming"}), flush=True)
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            time.sleep(0.1)
        elapsed = sender.get_streaming_elapsed_time_us()
    sender.teardown()
    print(json.dumps({"event": "done", "streamed": streamed, "elapsed_us": elapsed}), flush=True)
    return 0 if streamed else 1


if __name__ == "__main__":
    sys.exit(main())
