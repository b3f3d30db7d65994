"""pychromecast smoke run against cast-receiver (a starting point for the interop tests).

Usage: .venv/bin/python Examples/cast-receiver/pychromecast_smoke.py .build/debug/cast-receiver
"""
import re, subprocess, sys, time, logging
import pychromecast
from pychromecast.controllers.media import MediaController
from pychromecast.controllers import BaseController

logging.basicConfig(level=logging.INFO)
proc = subprocess.Popen([sys.argv[1], "--port", "0", "--name", "Py TV", "--echo-app", "ABCD1234=urn:x-cast:com.example.echo"],
                        stdout=subprocess.PIPE, text=True)
line = proc.stdout.readline()
port = int(re.search(r"listening on [^:]+:(\d+)", line).group(1))
print("port", port, flush=True)
try:
    import uuid
    cast = pychromecast.get_chromecast_from_host(("127.0.0.1", port, uuid.uuid4(), "Chromecast", "Py TV"))
    cast.wait(timeout=10)
    print("status", cast.status.display_name, cast.status.volume_level)
    cast.set_volume(0.3); time.sleep(0.3)
    cast.set_volume_muted(True); time.sleep(0.3)
    print("volume", cast.status.volume_level, cast.status.volume_muted)
    mc = cast.media_controller
    mc.play_media("http://127.0.0.1:1/a.mp4", "video/mp4", title="A", subtitles="http://127.0.0.1:1/a.vtt", subtitles_lang="en-US", subtitles_mime="text/vtt")
    mc.block_until_active(timeout=10)
    time.sleep(0.5)
    print("media", mc.status.player_state, mc.status.content_id, mc.status.media_session_id, mc.status.subtitle_tracks)
    mc.pause(); time.sleep(0.3); print("paused", mc.status.player_state)
    mc.play(); time.sleep(0.3); print("play", mc.status.player_state)
    mc.seek(42); time.sleep(0.3); print("seek", mc.status.current_time)
    mc.enable_subtitle(1); time.sleep(0.3); print("subs", mc.status.current_subtitle_tracks)
    mc.queue_next(); time.sleep(0.3)

    class Echo(BaseController):
        def __init__(self):
            super().__init__("urn:x-cast:com.example.echo", "ABCD1234")
            self.got = []
        def receive_message(self, _message, data):
            self.got.append(data); return True
    echo = Echo()
    cast.register_handler(echo)
    echo.launch(); time.sleep(1)
    echo.send_message({"type": "HELLO", "n": 1}); time.sleep(0.5)
    print("echo", echo.got, cast.status.app_id)
    cast.quit_app(); time.sleep(0.5)
    print("after quit", cast.status.app_id)
    cast.disconnect(timeout=5)
finally:
    proc.terminate()
    print(proc.communicate(timeout=10)[0], flush=True)
