"""Advertise a Cast-like _googlecast._tcp service with python-zeroconf (an advertiser that is not
Avahi), until stdin closes. Used by the CastDiscovery lab tests inside a network namespace.

usage: zeroconf_advertise.py ADDRESS INSTANCE_NAME DEVICE_ID
"""
import json
import socket
import sys

from zeroconf import IPVersion, ServiceInfo, Zeroconf

address, name, device_id = sys.argv[1:4]
info = ServiceInfo(
    "_googlecast._tcp.local.",
    f"{name}._googlecast._tcp.local.",
    addresses=[socket.inet_aton(address)],
    port=8009,
    properties={"id": device_id, "ve": "05", "md": "Zeroconf Speaker", "ic": "/setup/icon.png",
                "fn": "Zeroconf Kitchen", "ca": "4", "st": "0", "rs": ""},
    server=f"{device_id}.local.",
)
zc = Zeroconf(interfaces=[address], ip_version=IPVersion.V4Only)
zc.register_service(info)
print(json.dumps({"registered": name}), flush=True)
sys.stdin.read()
zc.unregister_service(info)
zc.close()
