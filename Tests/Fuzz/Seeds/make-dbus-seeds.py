#!/usr/bin/env python3
"""Writes the seeds of FuzzMPRISBusMessage: D-Bus method calls to an MPRIS player, as the session bus
delivers them (the wire format of the D-Bus specification, marshalled here by hand, no dependency:
independent of libdbus, which the target reads them with). Run from anywhere:
python3 Tests/Fuzz/Seeds/make-dbus-seeds.py"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "FuzzMPRISBusMessage")
ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "s": 4, "o": 4, "g": 1,
         "a": 4, "(": 8, "{": 8, "v": 1, "h": 4}
FORMAT = {"y": "B", "b": "I", "n": "h", "q": "H", "i": "i", "u": "I", "x": "q", "t": "Q", "d": "d", "h": "I"}


def split(signature):
    """The complete types of a signature, in order."""
    types, i = [], 0
    while i < len(signature):
        j = end_of(signature, i)
        types.append(signature[i:j])
        i = j
    return types


def end_of(signature, i):
    c = signature[i]
    if c == "a":
        return end_of(signature, i + 1)
    if c in "({":
        close, depth, j = ")" if c == "(" else "}", 0, i
        while True:
            if signature[j] in "({":
                depth += 1
            elif signature[j] in ")}":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
    return i + 1


class Writer:
    def __init__(self, order):
        self.order, self.data = order, bytearray()

    def pad(self, n):
        self.data += b"\0" * (-len(self.data) % n)

    def value(self, t, v):
        c = t[0]
        self.pad(ALIGN[c])
        if c in FORMAT:
            self.data += struct.pack(self.order + FORMAT[c], v)
        elif c in "so":
            raw = v.encode()
            self.data += struct.pack(self.order + "I", len(raw)) + raw + b"\0"
        elif c == "g":
            self.data += bytes([len(v)]) + v.encode() + b"\0"
        elif c == "v":
            inner, content = v
            self.value("g", inner)
            self.value(inner, content)
        elif c == "a":
            element = t[1:]
            at = len(self.data)
            self.data += b"\0\0\0\0"
            self.pad(ALIGN[element[0]])
            start = len(self.data)
            for item in v:
                self.value(element, item)
            self.data[at:at + 4] = struct.pack(self.order + "I", len(self.data) - start)
        elif c in "({":
            for field_type, field in zip(split(t[1:-1]), v):
                self.value(field_type, field)
        else:
            raise ValueError(t)


def method_call(member, interface=None, signature="", args=(), path="/org/mpris/MediaPlayer2",
                destination="org.mpris.MediaPlayer2.castor.d4e2b8a1a", serial=7, order="<", flags=0):
    body = Writer(order)
    for t, v in zip(split(signature), args):
        body.value(t, v)
    fields = [(1, ("o", path))]
    if interface:
        fields.append((2, ("s", interface)))
    fields += [(3, ("s", member)), (6, ("s", destination)), (7, ("s", ":1.42"))]
    if signature:
        fields.append((8, ("g", signature)))
    header = Writer(order)
    header.data += (b"l" if order == "<" else b"B") + bytes([1, flags, 1])
    header.data += struct.pack(order + "II", len(body.data), serial)
    header.value("a(yv)", fields)
    header.pad(8)
    return bytes(header.data + body.data)


def write(name, data):
    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


ROOT, PLAYER, TRACKLIST = "org.mpris.MediaPlayer2", "org.mpris.MediaPlayer2.Player", "org.mpris.MediaPlayer2.TrackList"
PROPS = "org.freedesktop.DBus.Properties"
TRACK = "/org/castor/Track/7_2"

write("get-playback-status.bin", method_call("Get", PROPS, "ss", [PLAYER, "PlaybackStatus"]))
write("get-all-player.bin", method_call("GetAll", PROPS, "s", [PLAYER]))
write("get-all-root.bin", method_call("GetAll", PROPS, "s", [ROOT]))
write("set-volume.bin", method_call("Set", PROPS, "ssv", [PLAYER, "Volume", ("d", 0.4)]))
write("set-loop-status.bin", method_call("Set", PROPS, "ssv", [PLAYER, "LoopStatus", ("s", "Playlist")]))
write("set-shuffle.bin", method_call("Set", PROPS, "ssv", [PLAYER, "Shuffle", ("b", 1)]))
write("set-rate.bin", method_call("Set", PROPS, "ssv", [PLAYER, "Rate", ("d", 1.5)]))
write("set-rate-nan.bin", method_call("Set", PROPS, "ssv", ["", "Rate", ("d", float("nan"))]))
for member in ["PlayPause", "Play", "Pause", "Stop", "Next", "Previous"]:
    write(f"{member.lower()}.bin", method_call(member, PLAYER))
write("seek.bin", method_call("Seek", PLAYER, "x", [30_000_000]))
write("seek-back-far.bin", method_call("Seek", PLAYER, "x", [-(2 ** 63)]))
write("set-position.bin", method_call("SetPosition", PLAYER, "ox", [TRACK, 120_000_000]))
write("open-uri.bin", method_call("OpenUri", PLAYER, "s", ["http://example.com/movie.mp4"]))
write("get-tracks-metadata.bin", method_call("GetTracksMetadata", TRACKLIST, "ao",
                                             [["/org/castor/Track/7_1", TRACK, "/org/castor/Track/7_3"]]))
write("add-track.bin", method_call("AddTrack", TRACKLIST, "sob", ["https://example.com/a.mp3", TRACK, 1]))
write("remove-track.bin", method_call("RemoveTrack", TRACKLIST, "o", ["/org/castor/Track/7_3"]))
write("go-to.bin", method_call("GoTo", TRACKLIST, "o", ["/org/castor/Track/7_1"]))
write("introspect.bin", method_call("Introspect", "org.freedesktop.DBus.Introspectable"))
write("quit.bin", method_call("Quit", ROOT))
write("raise-no-reply.bin", method_call("Raise", ROOT, flags=1))
# No interface named: the member decides (the D-Bus specification allows calls without one).
write("seek-no-interface.bin", method_call("Seek", None, "x", [-5_000_000]))
write("big-endian-set-position.bin", method_call("SetPosition", PLAYER, "ox", [TRACK, 1_000_000], order=">"))
# A Unix file descriptor inside a variant: the message's signature has no `h`, libdbus accepts it (found by
# FuzzMPRISBusMessage), and the player's reader refuses it (answered with InvalidArgs).
write("variant-with-fd.bin", method_call("Set", PROPS, "ssv", [PLAYER, "Volume", ("h", 0)]))
# Every container and basic type, for the reader and writer.
write("every-type.bin", method_call(
    "Everything", PLAYER, "ybnqiuxtdsogva{sv}(iyd)aay",
    [255, 1, -2, 3, -4, 5, -6, 7, 0.5, "text", "/a/b", "a{sv}", ("as", ["x", "y"]),
     [("k", ("i", 1)), ("l", ("a{sv}", [("m", ("v", ("s", "deep")))]))], (1, 2, 3.0), [b"", b"\x01\x02"]]))
