"""A small DIAL server: answers SSDP M-SEARCH for the DIAL service on 239.255.255.250:1900 and
serves a UPnP device description with an Application-URL header, until stdin closes. Used by the
CastDiscovery lab tests inside a network namespace (it never leaves it).

usage: ssdp_responder.py ADDRESS DEVICE_UUID FRIENDLY_NAME
"""
import http.server
import json
import socket
import struct
import sys
import threading

address, device_uuid, friendly = sys.argv[1:4]
http_port = 8008
target = "urn:dial-multiscreen-org:service:dial:1"
description = f"""<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
  <specVersion><major>1</major><minor>0</minor></specVersion>
  <URLBase>http://{address}:{http_port}</URLBase>
  <device>
    <deviceType>urn:dial-multiscreen-org:device:dial:1</deviceType>
    <friendlyName>{friendly}</friendlyName>
    <manufacturer>Castor Lab</manufacturer>
    <modelName>Lab DIAL TV</modelName>
    <UDN>uuid:{device_uuid}</UDN>
  </device>
</root>
""".encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/ssdp/device-desc.xml":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Application-URL", f"http://{address}:{http_port}/apps/")
        self.send_header("Content-Length", str(len(description)))
        self.end_headers()
        self.wfile.write(description)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer((address, http_port), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()

ssdp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
ssdp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ssdp.bind(("", 1900))
ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                struct.pack("4s4s", socket.inet_aton("239.255.255.250"), socket.inet_aton(address)))
searches = []


def answer():
    while True:
        data, sender = ssdp.recvfrom(8192)
        text = data.decode("utf-8", "replace")
        if not text.startswith("M-SEARCH") or target not in text:
            continue
        searches.append(sender[0])
        reply = (f"HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nEXT:\r\n"
                 f"LOCATION: http://{address}:{http_port}/ssdp/device-desc.xml\r\n"
                 f"SERVER: Linux/5 UPnP/1.0 CastorLab/1.0\r\nST: {target}\r\n"
                 f"USN: uuid:{device_uuid}::{target}\r\nCONFIGID.UPNP.ORG: 7\r\n\r\n")
        ssdp.sendto(reply.encode(), sender)


threading.Thread(target=answer, daemon=True).start()
print(json.dumps({"listening": address}), flush=True)
sys.stdin.read()
print(json.dumps({"searches": searches}), flush=True)
server.shutdown()
