"""Find a Cast device with pychromecast's discovery (CastBrowser on python-zeroconf), then connect to
the address and port it advertised and read the receiver status; print the outcome as one JSON line.

usage: pychromecast_connect.py ADDRESS DEVICE_UUID SECONDS
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
result = {"found": info is not None}
if info is not None:
    result.update({"host": info.host, "port": info.port, "friendly_name": info.friendly_name})
    cast = pychromecast.get_chromecast_from_cast_info(info, zc, tries=1, retry_wait=1, timeout=10)
    try:
        cast.wait(timeout=15)
        result["connected"] = cast.status is not None
        result["volume"] = cast.status.volume_level if cast.status else None
    except Exception as error:  # the advertised address does not answer
        result["connected"] = False
        result["error"] = repr(error)
    cast.disconnect(timeout=5)
browser.stop_discovery()
zc.close()
print(json.dumps(result), flush=True)
