"""Run pychromecast's discovery (CastBrowser on python-zeroconf) until the device with the given
UUID appears or the time limit passes; print what pychromecast learnt as one JSON line.

usage: pychromecast_discover.py ADDRESS DEVICE_UUID SECONDS
"""
import json
import sys
import threading
import uuid

import pychromecast
import zeroconf

address, wanted, seconds = sys.argv[1], uuid.UUID(sys.argv[2]), float(sys.argv[3])
found = threading.Event()


def added(found_uuid, _service):
    if found_uuid == wanted:
        found.set()


zc = zeroconf.Zeroconf(interfaces=[address])
browser = pychromecast.discovery.CastBrowser(
    pychromecast.discovery.SimpleCastListener(add_callback=added, update_callback=added), zc)
browser.start_discovery()
found.wait(seconds)
info = browser.devices.get(wanted)
if info is None:
    print(json.dumps({"found": False, "devices": [str(u) for u in browser.devices]}), flush=True)
else:
    print(json.dumps({"found": True, "uuid": str(info.uuid), "friendly_name": info.friendly_name,
                      "model_name": info.model_name, "host": info.host, "port": info.port,
                      "cast_type": info.cast_type}), flush=True)
browser.stop_discovery()
zc.close()
