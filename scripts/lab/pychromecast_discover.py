"""Run pychromecast's discovery (CastBrowser on python-zeroconf) until the device with the given UUID
appears or the time limit passes; print what pychromecast learnt as one JSON line. With --connect,
also connect to the address and port it advertised and read the receiver status.

usage: pychromecast_discover.py ADDRESS DEVICE_UUID SECONDS [--connect]
"""
import json
import sys
import threading
import uuid

import pychromecast
import zeroconf

address, wanted, seconds = sys.argv[1], uuid.UUID(sys.argv[2]), float(sys.argv[3])
connect = "--connect" in sys.argv[4:]
found = threading.Event()


def added(found_uuid, _service):
    if found_uuid == wanted:
        found.set()


def connected(info):
    """The receiver status through the advertised address, as pychromecast reads it."""
    cast = pychromecast.get_chromecast_from_cast_info(info, zc, tries=1, retry_wait=1, timeout=10)
    try:
        cast.wait(timeout=15)
        return {"connected": cast.status is not None, "volume": cast.status.volume_level if cast.status else None}
    except Exception as error:  # the advertised address does not answer
        return {"connected": False, "error": repr(error)}
    finally:
        cast.disconnect(timeout=5)


zc = zeroconf.Zeroconf(interfaces=[address])
browser = pychromecast.discovery.CastBrowser(
    pychromecast.discovery.SimpleCastListener(add_callback=added, update_callback=added), zc)
browser.start_discovery()
found.wait(seconds)
info = browser.devices.get(wanted)
if info is None:
    result = {"found": False, "devices": [str(u) for u in browser.devices]}
else:
    result = {"found": True, "uuid": str(info.uuid), "friendly_name": info.friendly_name,
              "model_name": info.model_name, "host": info.host, "port": info.port, "cast_type": info.cast_type}
    if connect:
        result.update(connected(info))
print(json.dumps(result), flush=True)
browser.stop_discovery()
zc.close()
