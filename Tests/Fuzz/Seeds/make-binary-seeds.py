#!/usr/bin/env python3
"""Writes the binary seeds of FuzzCastFrame and FuzzDeviceAuthMessage (protobuf by hand, no dependency).
Run from anywhere: python3 Tests/Fuzz/Seeds/make-binary-seeds.py"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def ld(number, data):
    if isinstance(data, str):
        data = data.encode()
    return field(number, 2, varint(len(data)) + data)


def vi(number, value):
    return field(number, 0, varint(value))


def cast_message(source, destination, namespace, payload):
    body = vi(1, 0) + ld(2, source) + ld(3, destination) + ld(4, namespace)
    if isinstance(payload, bytes):
        return body + vi(5, 1) + ld(7, payload)
    return body + vi(5, 0) + ld(6, payload)


def write(target, name, data):
    os.makedirs(os.path.join(HERE, target), exist_ok=True)
    with open(os.path.join(HERE, target, name), "wb") as f:
        f.write(data)


def frame(body):
    return len(body).to_bytes(4, "big") + body


challenge = ld(1, vi(1, 1) + ld(2, bytes(range(16))) + vi(3, 1))
response = ld(2, ld(1, b"\x01" * 256) + ld(2, b"\x30\x82\x01\x00" + b"\x00" * 16) + ld(3, b"\x30\x03\x02\x01\x00")
              + vi(4, 1) + ld(5, bytes(range(16))) + vi(6, 1) + ld(7, b"\x0a\x00"))
error = ld(3, vi(1, 2))
write("FuzzDeviceAuthMessage", "challenge.bin", challenge)
write("FuzzDeviceAuthMessage", "response.bin", response)
write("FuzzDeviceAuthMessage", "error.bin", error)

connect = cast_message("sender-0", "receiver-0", "urn:x-cast:com.google.cast.tp.connection", '{"type":"CONNECT"}')
status = cast_message("receiver-0", "*", "urn:x-cast:com.google.cast.receiver",
                      '{"requestId":1,"status":{"applications":[{"appId":"CC1AD845","sessionId":"s","transportId":"t",'
                      '"namespaces":[{"name":"urn:x-cast:com.google.cast.media"}]}],"volume":{"level":0.5,"muted":false}},'
                      '"type":"RECEIVER_STATUS"}')
auth = cast_message("sender-0", "receiver-0", "urn:x-cast:com.google.cast.tp.deviceauth", challenge)
unusual = (vi(1, 3) + ld(2, "s\x00\x08") + field(20, 3, vi(1, 1) + field(20, 4, b"")) + ld(3, "d") + vi(4, 8)
           + ld(4, "urn:x-cast:n") + vi(5, 1) + ld(6, "{}") + vi(5, 0) + vi(8, 1) + vi(9, 2))
write("FuzzCastFrame", "connect.bin", frame(connect))
write("FuzzCastFrame", "receiver-status.bin", frame(status))
write("FuzzCastFrame", "device-auth.bin", frame(auth))
write("FuzzCastFrame", "unusual-but-valid.bin", frame(unusual))
write("FuzzCastFrame", "body-only.bin", connect)
write("FuzzCastFrame", "two-frames.bin", frame(connect) + frame(status))

write("FuzzAuthResponse", "response.bin", response)
write("FuzzAuthResponse", "error.bin", error)

txt = b"".join(bytes([len(s)]) + s for s in [
    b"id=4e2b8a1a3c6f9e0d7b5a2c1e8f6d4b3a", b"cd=3F1A2B3C4D5E6F708192A3B4C5D6E7F8", b"rm=", b"ve=05",
    b"md=Chromecast Ultra", b"ic=/setup/icon.png", b"fn=Living Room TV", b"ca=201221", b"st=0", b"bs=FA8FCA7EE8C2",
    b"nf=1", b"rs=", b"flag", b"=novalue"])
write("FuzzTXTRecord", "chromecast.bin", txt)
