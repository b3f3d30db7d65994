#!/usr/bin/env python3
"""Drives an emulated Castor receiver with pychromecast (a real third-party sender).

Prints one JSON object per check: {"check": name, "ok": bool, "detail": text}, then
{"done": true}. The Swift test InteropTests runs it against `cast-receiver` and asserts every check.
"""
import argparse
import json
import threading
import time
import uuid

import pychromecast
from pychromecast.controllers import BaseController

import sys
sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import report, wait_for, run

DMR = "CC1AD845"


class EchoController(BaseController):
    """A custom namespace controller: the receiver app answers with the message itself."""

    def __init__(self, namespace, app_id):
        super().__init__(namespace, app_id)
        self.replies = []
        self.event = threading.Event()

    def receive_message(self, _message, data):
        self.replies.append(data)
        self.event.set()
        return True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--uuid", required=True)
    parser.add_argument("--name", default="Castor Interop")
    parser.add_argument("--echo-app", required=True, help="APPID=NAMESPACE")
    args = parser.parse_args()
    echo_app, echo_namespace = args.echo_app.split("=", 1)

    cast = pychromecast.get_chromecast_from_host(
        (args.host, args.port, uuid.UUID(args.uuid), "Chromecast", args.name), tries=3, retry_wait=1, timeout=10)
    cast.wait(timeout=15)
    status = cast.status
    report("receiver_status", status is not None and status.volume_level is not None,
           f"app={status.app_id if status else None} volume={status.volume_level if status else None}")

    # Device volume and mute.
    cast.set_volume(0.3)
    report("set_volume", wait_for(lambda: abs(cast.status.volume_level - 0.3) < 0.01), cast.status.volume_level)
    cast.set_volume_muted(True)
    report("mute", wait_for(lambda: cast.status.volume_muted is True), cast.status.volume_muted)
    cast.set_volume_muted(False)
    report("unmute", wait_for(lambda: cast.status.volume_muted is False), cast.status.volume_muted)

    # Launch of the Default Media Receiver through play_media, with a subtitle track.
    mc = cast.media_controller
    mc.play_media("http://127.0.0.1:9/bunny.mp4", "video/mp4", title="Big Buck Bunny",
                  stream_type="BUFFERED", subtitles="http://127.0.0.1:9/bunny.en.vtt",
                  subtitles_lang="en-US", subtitles_mime="text/vtt",
                  media_info={"duration": 596})
    mc.block_until_active(timeout=10)
    report("launch_dmr", wait_for(lambda: cast.app_id == DMR), cast.app_id)
    report("play_media", wait_for(lambda: mc.status.player_state == "PLAYING"), mc.status.player_state)
    report("subtitle_track", wait_for(lambda: any(t.get("trackId") == 1 for t in (mc.status.subtitle_tracks or []))),
           mc.status.subtitle_tracks)
    report("title", mc.status.title == "Big Buck Bunny", mc.status.title)

    # Pause, play, seek.
    mc.pause()
    report("pause", wait_for(lambda: mc.status.player_state == "PAUSED"), mc.status.player_state)
    mc.play()
    report("play", wait_for(lambda: mc.status.player_state == "PLAYING"), mc.status.player_state)
    mc.seek(120)
    report("seek", wait_for(lambda: mc.status.current_time >= 120), mc.status.current_time)
    mc.enable_subtitle(1)
    report("enable_subtitle", wait_for(lambda: 1 in (mc.status.current_subtitle_tracks or [])),
           mc.status.current_subtitle_tracks)

    # Queue next/previous: enqueue two more items, then move through them.
    for name in ("two", "three"):
        mc.play_media(f"http://127.0.0.1:9/{name}.mp4", "video/mp4", title=name, stream_type="BUFFERED", enqueue=True,
                      media_info={"duration": 300})
    time.sleep(0.3)
    mc.queue_next()
    report("queue_next", wait_for(lambda: mc.status.title == "two"), mc.status.title)
    mc.queue_prev()
    report("queue_prev", wait_for(lambda: mc.status.title == "Big Buck Bunny"), mc.status.title)

    # Numbers no real media has, from a sender we did not write: a duration of 1e21 seconds (past what a
    # Swift Duration holds: this trapped the receiver before ffca6e8), a seek near it, then a start at
    # 1e299 seconds of a 1e300-second item. The receiver keeps answering and reports what it was told.
    mc.play_media("http://127.0.0.1:9/huge.mp4", "video/mp4", title="huge", stream_type="BUFFERED",
                  media_info={"duration": 1e21})
    report("huge_duration", wait_for(lambda: mc.status.title == "huge" and mc.status.player_state == "PLAYING"
                                     and mc.status.duration == 1e21), (mc.status.duration, mc.status.player_state))
    mc.seek(1e20)
    report("huge_seek", wait_for(lambda: mc.status.current_time >= 1e20), mc.status.current_time)
    mc.play_media("http://127.0.0.1:9/huger.mp4", "video/mp4", title="huger", stream_type="BUFFERED",
                  current_time=1e299, media_info={"duration": 1e300})
    report("huge_start", wait_for(lambda: mc.status.title == "huger" and mc.status.current_time >= 1e299),
           (mc.status.title, mc.status.current_time))
    mc.update_status()
    report("huge_status", wait_for(lambda: mc.status.player_state == "PLAYING" and mc.status.duration == 1e300),
           (mc.status.player_state, mc.status.duration))

    # A custom namespace controller, which launches its app and round-trips a message.
    echo = EchoController(echo_namespace, echo_app)
    cast.register_handler(echo)
    echo.send_message({"type": "HELLO", "from": "pychromecast"})
    got = echo.event.wait(10)
    report("custom_namespace_launch", wait_for(lambda: cast.app_id == echo_app), cast.app_id)
    # The echo app answers with the request itself.
    report("custom_namespace_round_trip", got and any(r.get("from") == "pychromecast" for r in echo.replies),
           echo.replies)

    # Quit the app.
    cast.quit_app()
    report("quit_app", wait_for(lambda: cast.app_id in (None, "E8C28D3C")), cast.app_id)
    cast.disconnect(timeout=5)
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    run(main)
