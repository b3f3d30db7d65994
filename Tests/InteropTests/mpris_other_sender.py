#!/usr/bin/env python3
"""The "other sender" of the MPRIS interop test: pychromecast (Debian's python3-pychromecast).

  load    loads a song with title, artist and duration, then queues two more
  huge    loads a song of 1e21 seconds (more than any Swift Duration or D-Bus length holds)
  pause   pauses what plays
  status  prints the receiver's last MEDIA_STATUS entry and the device volume
  stop    stops the receiver app (the media session ends)

Prints one JSON object: {"ok": bool, "status": {...}, "volume": float, "detail": text}.
"""
import argparse
import json
import threading
import uuid

import pychromecast

import sys
sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import wait_for

DMR = "CC1AD845"


def song(n):
    return {
        "metadata": {"metadataType": 3, "title": f"Song {n}", "artist": "The Castors", "albumName": "Interop"},
        "media_info": {"duration": 200},
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["load", "huge", "pause", "status", "stop"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--uuid", required=True)
    args = parser.parse_args()

    cast = pychromecast.get_chromecast_from_host(
        (args.host, args.port, uuid.UUID(args.uuid), "Chromecast", "Interop TV"), tries=3, retry_wait=1, timeout=10)
    cast.wait(timeout=15)
    mc = cast.media_controller
    raw = {}
    updated = threading.Event()
    original = mc.receive_message

    def capture(message, data):
        if data.get("type") == "MEDIA_STATUS" and data.get("status"):
            raw.update(data["status"][0])
            updated.set()
        return original(message, data)

    mc.receive_message = capture
    ok, detail = True, ""
    if args.command == "load":
        base = "http://127.0.0.1:9/song{}.mp3"
        mc.play_media(base.format(1), "audio/mpeg", **song(1))
        ok = wait_for(lambda: mc.status.player_state == "PLAYING")
        for n in (2, 3):
            updated.clear()
            mc.play_media(base.format(n), "audio/mpeg", enqueue=True, **song(n))
            ok = updated.wait(10) and ok  # the receiver's MEDIA_STATUS after QUEUE_INSERT
        detail = f"state={mc.status.player_state}"
    elif args.command == "huge":
        mc.play_media("http://127.0.0.1:9/forever.mp3", "audio/mpeg",
                      metadata={"metadataType": 3, "title": "Forever", "artist": "The Castors"},
                      media_info={"duration": 1e21})
        ok = wait_for(lambda: mc.status.player_state == "PLAYING" and mc.status.duration == 1e21)
        detail = f"state={mc.status.player_state} duration={mc.status.duration}"
    elif args.command == "pause":
        if cast.app_id is not None:
            mc.update_status()
            wait_for(lambda: mc.status.media_session_id is not None)
        mc.pause()
        ok = wait_for(lambda: mc.status.player_state == "PAUSED")
        detail = f"state={mc.status.player_state}"
    elif args.command == "stop":
        cast.quit_app()
        ok = wait_for(lambda: cast.app_id != DMR)  # back to the idle screen (Backdrop) or no app
        print(json.dumps({"ok": bool(ok), "status": {}, "volume": cast.status.volume_level, "detail": f"app={cast.app_id}"}), flush=True)
        cast.disconnect(timeout=5)
        return
    updated.clear()
    mc.update_status()
    ok = updated.wait(10) and ok
    print(json.dumps({"ok": bool(ok), "status": raw, "volume": cast.status.volume_level, "detail": detail}), flush=True)
    cast.disconnect(timeout=5)


if __name__ == "__main__":
    main()
