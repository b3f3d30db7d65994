#!/usr/bin/env python3
"""Drives one media session on cast-receiver with a third-party sender library.

    sender_session_driver.py --library pychromecast|nichromecast --port P --uuid U --media URL

Works with pychromecast 9.4 (Debian's python3-pychromecast, run with /usr/bin/python3), pychromecast 14
(PyPI) and nichromecast (PyPI): connect, launch the Default Media Receiver, play, pause, seek, stop.
Prints one JSON object per check, {"check": name, "ok": bool, "detail": text}, then {"done": true}.
"""
import argparse
import json
import uuid

import sys
sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import report, wait_for, run


def drive_pychromecast(args):
    import pychromecast

    version = getattr(pychromecast, "__version__", None)
    try:
        from importlib.metadata import version as dist_version
        version = dist_version("PyChromecast")
    except Exception:
        pass
    report("library", True, f"pychromecast {version} from {pychromecast.__file__}")
    cast = pychromecast.get_chromecast_from_host(
        (args.host, args.port, uuid.UUID(args.uuid), "Chromecast", "Interop TV"), tries=3, retry_wait=1, timeout=10)
    cast.wait(timeout=15)
    report("connect", cast.status is not None, cast.status)
    mc = cast.media_controller
    # pychromecast 14 defaults to LIVE; a clip is BUFFERED (what catt and Home Assistant send).
    mc.play_media(args.media, "video/mp4", title="Interop clip", stream_type="BUFFERED")
    mc.block_until_active(timeout=15)
    report("launch", wait_for(lambda: cast.app_id == "CC1AD845"), cast.app_id)
    report("play", wait_for(lambda: mc.status.player_state == "PLAYING"), mc.status.player_state)
    report("duration", wait_for(lambda: (mc.status.duration or 0) > 0), mc.status.duration)
    mc.pause()
    report("pause", wait_for(lambda: mc.status.player_state == "PAUSED"), mc.status.player_state)
    mc.play()
    report("resume", wait_for(lambda: mc.status.player_state == "PLAYING"), mc.status.player_state)
    mc.seek(4)
    report("seek", wait_for(lambda: 4 <= mc.status.current_time < 8), mc.status.current_time)
    mc.stop()
    report("stop", wait_for(lambda: mc.status.player_state == "IDLE"), mc.status.player_state)
    cast.quit_app()
    report("quit", wait_for(lambda: cast.app_id in (None, "E8C28D3C")), cast.app_id)
    cast.disconnect(timeout=5)


def drive_nichromecast(args):
    from nichromecast.backends.cast import CastPlayer
    from nichromecast.backends.base import State

    player = CastPlayer(args.host, args.port)  # connects and launches the Default Media Receiver
    report("connect", True, player.app.get("displayName"))
    report("launch", player.app.get("appId") == "CC1AD845", player.app)
    player.load(args.media, title="Interop clip", content_type="video/mp4")
    report("play", wait_for(lambda: player.status().state == State.PLAYING), player.status())
    report("duration", (player.status().duration or 0) > 0, player.status().duration)
    player.pause()
    report("pause", player.status().state == State.PAUSED, player.status())
    player.play()
    report("resume", player.status().state == State.PLAYING, player.status())
    player.seek(4)
    report("seek", 4 <= (player.status().position or 0) < 8, player.status())
    player.stop()
    report("stop", player.status().state == State.IDLE, player.status())
    player.session.stop_app(player.app["sessionId"])
    report("quit", True)
    player.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", choices=["pychromecast", "nichromecast"], required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--uuid", required=True)
    parser.add_argument("--media", required=True)
    args = parser.parse_args()
    if args.library == "pychromecast":
        drive_pychromecast(args)
    else:
        drive_nichromecast(args)
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    run(main)
