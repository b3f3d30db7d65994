#!/usr/bin/env python3
"""pychromecast (a sender we did not write) around `castctl announce`, `save` and `restore`.

  setup --base URL   launches the Default Media Receiver, loads a three-item queue (URL/item1.mp3,
                     item2.mp3 with the text track URL/item2.vtt, item3.mp3) at item 2, 30 s, sets the
                     rate to 1.5, turns the text track on and sets the device volume to 0.3
  read               prints what the device plays now
  serve DIR          serves DIR over HTTP on a free loopback port with CORS (as media servers for Cast do),
                     printing {"port": N}, until killed

Each prints one JSON object: {"ok": bool, "detail": text, "status": {...}}.
"""
import argparse
import functools
import http.server
import json
import sys
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in the test target (SwiftPM would warn about it)
from driver_checks import wait_for

DMR = "CC1AD845"


def status_of(cast):
    mc = cast.media_controller
    s = mc.status
    return {
        "app": cast.app_id,
        "volume": cast.status.volume_level if cast.status else None,
        "muted": cast.status.volume_muted if cast.status else None,
        "contentId": s.content_id,
        "playerState": s.player_state,
        "currentTime": s.current_time,
        "playbackRate": s.playback_rate,
        "activeTrackIds": s.current_subtitle_tracks,
        "lastUpdated": s.last_updated.timestamp() if s.last_updated else None,
    }


class CORSHandler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, *args):
        pass


def serve(directory):
    handler = functools.partial(CORSHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    server.serve_forever()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        serve(sys.argv[2])
        return
    import pychromecast

    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["setup", "read"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--uuid", required=True)
    parser.add_argument("--base")
    args = parser.parse_args()
    cast = pychromecast.get_chromecast_from_host(
        ("127.0.0.1", args.port, uuid.UUID(args.uuid), "Chromecast", "Castor TV"), tries=3, retry_wait=1, timeout=10)
    cast.wait(timeout=15)
    mc = cast.media_controller
    ok = True
    detail = ""
    if args.command == "setup":
        cast.set_volume(0.3)
        ok &= wait_for(lambda: abs(cast.status.volume_level - 0.3) < 0.001)
        cast.start_app(DMR)
        ok &= wait_for(lambda: cast.app_id == DMR)
        mc.block_until_active(timeout=15)
        track = {"trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "trackContentId": f"{args.base}/item2.vtt",
                 "trackContentType": "text/vtt", "name": "English", "language": "en"}
        items = []
        for n in (1, 2, 3):
            media = {"contentId": f"{args.base}/item{n}.mp3", "contentType": "audio/mpeg", "streamType": "BUFFERED",
                     "metadata": {"metadataType": 0, "title": f"Item {n}"}}
            item = {"media": media, "autoplay": True}
            if n == 2:
                media["tracks"] = [track]
                item["activeTrackIds"] = [1]
            items.append(item)
        mc.send_message({"type": "QUEUE_LOAD", "items": items, "startIndex": 1, "currentTime": 30,
                         "repeatMode": "REPEAT_OFF"}, inc_session_id=False)
        ok &= wait_for(lambda: mc.status.content_id == f"{args.base}/item2.mp3" and mc.status.player_state == "PLAYING")
        mc._send_command({"type": "SET_PLAYBACK_RATE", "playbackRate": 1.5}, None)
        ok &= wait_for(lambda: mc.status.playback_rate == 1.5)
        detail = "queue loaded at item 2, 30 s, rate 1.5, track 1, volume 0.3"
    else:
        mc.block_until_active(timeout=15)
        mc.update_status()
        ok &= wait_for(lambda: mc.status.player_state in ("PLAYING", "PAUSED", "BUFFERING", "IDLE"))
    print(json.dumps({"ok": bool(ok), "detail": detail, "status": status_of(cast)}), flush=True)
    cast.disconnect(timeout=5)


if __name__ == "__main__":
    main()
