#!/usr/bin/env python3
"""An OpenSSL TLS peer for Castor's TLS conformance tests and benchmarks.

OpenSSL runs through Python's `ssl` module over memory BIOs (`MemoryBIO` + `SSLObject`), and this
script moves the ciphertext between the BIOs and a real TCP socket itself. That gives exact control
of what goes on the wire and when: session tickets held back and coalesced with application data,
records split into 1-byte segments, many records in one segment, KeyUpdate (`SSL_key_update`,
reached through ctypes on the `SSL*`: Python 3.11 has no API for it), close_notify, abrupt close.

Two modes:

* ``script``: driven by one command per line on standard input, answering on standard output
  (the conformance tests in CastTLSTests). Commands are listed in ``Script.COMMANDS``.
* ``device``: a minimal Cast device over OpenSSL: it answers device authentication (with an
  AuthError, as a device without credentials; or, with ``--auth-answer``, an oversized frame, a
  frame that is no CastMessage, a close or a reset), CONNECT, PING and GET_STATUS (castctl
  reproductions, CastChannels tests, `make bench`). Given ``--receiver-status`` files, it answers
  the receiver namespace with their text; given ``--media-status`` files, it runs a media app
  (transport id ``web-5``) that answers every media request with the next file's text, cycling:
  statuses real devices sent, as they sent them, with only the ``requestId`` made the request's.

Only the standard library is used; any Python 3.8+ with `ssl` works.
"""

import argparse
import ctypes
import ctypes.util
import json
import os
import re
import select
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------------------------------------
# OpenSSL calls Python does not expose


def _load_libssl():
    """The libssl the `_ssl` module uses (found in this process's memory map)."""
    import _ssl  # noqa: F401  (makes sure libssl is mapped)

    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if "libssl.so" in path:
                    return ctypes.CDLL(path)
    except OSError:
        pass
    name = ctypes.util.find_library("ssl")
    return ctypes.CDLL(name) if name else None


LIBSSL = _load_libssl()
if LIBSSL is not None:
    for fn, args, res in [
        ("SSL_key_update", [ctypes.c_void_p, ctypes.c_int], ctypes.c_int),
        ("SSL_new_session_ticket", [ctypes.c_void_p], ctypes.c_int),
        ("SSL_is_server", [ctypes.c_void_p], ctypes.c_int),
        ("SSL_version", [ctypes.c_void_p], ctypes.c_int),
    ]:
        f = getattr(LIBSSL, fn, None)
        if f is not None:
            f.argtypes, f.restype = args, res


def ssl_pointer(obj, server_side):
    """The `SSL*` inside an `ssl.SSLObject` (PySSLSocket: PyObject_HEAD, PyObject *Socket, SSL *ssl)."""
    if LIBSSL is None:
        raise RuntimeError("libssl not found")
    base = id(obj._sslobj)
    pointer = ctypes.c_void_p.from_address(base + 3 * ctypes.sizeof(ctypes.c_void_p)).value
    if not pointer or LIBSSL.SSL_is_server(pointer) != (1 if server_side else 0):
        raise RuntimeError("could not locate the SSL* of the SSLObject")
    return pointer


# ---------------------------------------------------------------------------------------------
# A TLS endpoint: OpenSSL on memory BIOs, a real socket underneath


def make_context(server_side, max_version, min_version, tickets, cert, key):
    if server_side:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        ctx.num_tickets = tickets
    else:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    versions = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}
    ctx.maximum_version = versions[max_version]
    ctx.minimum_version = versions[min_version or "1.2"]
    return ctx


RCVBUF = [0]  # --rcvbuf: a small receive buffer, for a peer that stops reading


class PeerClosed(Exception):
    pass


class Endpoint:
    """One TLS connection: `pump_*` moves bytes; nothing is sent before `flush`."""

    def __init__(self, sock, ctx, server_side, timeout):
        self.sock = sock
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if RCVBUF[0]:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF[0])
        self.sock.settimeout(timeout)
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.obj = ctx.wrap_bio(self.incoming, self.outgoing, server_side=server_side)
        self.server_side = server_side
        self.sent = 0
        self.received = 0
        self.eof = False
        self.close_notify = False
        self.raw = b""  # raw bytes read but not yet fed to OpenSSL (record counting)

    # Socket side
    def recv_raw(self):
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            self.eof = True
            self.incoming.write_eof()
            return b""
        self.received += len(data)
        return data

    def feed(self, data):
        if data:
            self.incoming.write(data)

    def flush(self, chunk=0, gap=0.0):
        data = self.outgoing.read()
        if not chunk:
            if data:
                self.sock.sendall(data)
        else:
            for i in range(0, len(data), chunk):
                self.sock.sendall(data[i:i + chunk])
                if gap:
                    time.sleep(gap)
        self.sent += len(data)
        return len(data)

    # TLS side
    def handshake(self, hold_tail, chunk=0):
        """Runs the handshake, sending each flight in `chunk`-byte writes (0: one write); with
        `hold_tail`, what the final step wrote (TLS 1.3 server: the session tickets) stays in the
        outgoing BIO for a later `flush`."""
        while True:
            try:
                self.obj.do_handshake()
                if not hold_tail:
                    self.flush(chunk=chunk)
                return
            except ssl.SSLWantReadError:
                self.flush(chunk=chunk)
                data = self.recv_raw()
                if not data:
                    raise PeerClosed("the peer closed the connection during the handshake")
                self.feed(data)

    def read_plain(self, want):
        """Reads until `want` plaintext bytes arrived (or close_notify / EOF)."""
        got = b""
        while len(got) < want:
            try:
                chunk = self.obj.read(want - len(got))
                if not chunk:
                    self.close_notify = True
                    break
                got += chunk
                continue
            except ssl.SSLWantReadError:
                pass
            except ssl.SSLZeroReturnError:
                self.close_notify = True
                break
            if self.eof:
                break
            self.feed(self.recv_raw())
        return got

    def drain_plain(self):
        """Whatever plaintext OpenSSL can produce from what it has, without reading the socket."""
        got = b""
        while True:
            try:
                chunk = self.obj.read(65536)
                if not chunk:
                    self.close_notify = True
                    return got
                got += chunk
            except ssl.SSLZeroReturnError:
                self.close_notify = True
                return got
            except (ssl.SSLWantReadError, ssl.SSLError):
                return got

    def read_records(self, count):
        """Reads raw bytes until `count` more complete TLS records arrived; feeds them to OpenSSL."""
        records = 0
        while True:
            while len(self.raw) >= 5:
                length = struct.unpack("!H", self.raw[3:5])[0]
                if len(self.raw) < 5 + length:
                    break
                self.feed(self.raw[:5 + length])
                self.raw = self.raw[5 + length:]
                records += 1
                if records == count:
                    return records, self.drain_plain()
            data = self.recv_raw()
            if not data:
                return records, self.drain_plain()
            self.raw += data

    def await_close(self):
        """Reads until the peer's TCP stream ends; reports whether close_notify came first."""
        while not self.eof:
            self.drain_plain()
            self.feed(self.recv_raw())
        self.drain_plain()
        return self.close_notify

    def pointer(self):
        return ssl_pointer(self.obj, self.server_side)


# ---------------------------------------------------------------------------------------------
# Script mode


class Script:
    COMMANDS = """
    accept                 server: accept the TCP connection
    connect                client: connect to --port
    handshake [K]          run the TLS handshake, flights in K-byte writes (TLS 1.3 server:
                           the session tickets are held back for a later flush)   -> HANDSHAKE version HELD n
    write TEXT             encrypt TEXT (not sent until flush)
    writepattern N         encrypt N bytes of a fixed pattern (N > 16384 gives maximum-size records)
    writecast SRC DST NS JSON   encrypt one framed CastMessage with a JSON payload
    floodstatus N [PAD]    encrypt CONNECT and N receiver GET_STATUS requests (requestId 1...N),
                           each padded with a PAD-character "pad" field
    floodcast N SRC DST NS JSON   encrypt N copies of one CastMessage
    connectflood N         encrypt N CONNECTs to receiver-0, from N different source ids
    readcast               read one framed CastMessage                  -> CAST ns json
    ticket                 server: queue one more NewSessionTicket (SSL_new_session_ticket)
    keyupdate 0|1          queue a KeyUpdate, 1 = update_requested (SSL_key_update)
    flush                  send everything queued in one write          -> SENT total
    flushsplit K [MS]      send it in K-byte writes, MS ms apart        -> SENT total
    read N                 read N bytes of plaintext                    -> READ hex | SHORT hex
    readrecords K          read until K complete TLS records arrived    -> RECORDS k PLAIN hex
    closenotify            queue close_notify (SSL_shutdown)
    awaitclose             read until TCP EOF                           -> CLOSED closenotify=0|1
    abort [rst]            close the socket without close_notify (rst: with a TCP reset)
    exit
    """

    def __init__(self, args):
        self.args = args
        self.server_side = args.role == "server"
        self.ctx = make_context(self.server_side, args.max_version, args.min_version, args.tickets, args.cert, args.key)
        self.listener = None
        self.endpoint = None
        self.pattern_offset = 0
        if self.server_side:
            self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.listener.bind(("127.0.0.1", 0))
            self.listener.listen(4)
            self.listener.settimeout(args.timeout)
            say("PORT", self.listener.getsockname()[1])
        else:
            say("READY")

    def run(self):
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            try:
                if not self.execute(words[0], words[1:], line):
                    return
            except Exception as error:  # reported, the test decides
                say("ERROR", type(error).__name__, str(error).replace("\n", " "))

    def execute(self, command, rest, line):
        e = self.endpoint
        if command == "accept":
            sock, _ = self.listener.accept()
            self.endpoint = Endpoint(sock, self.ctx, True, self.args.timeout)
            say("ACCEPTED")
        elif command == "connect":
            sock = socket.create_connection(("127.0.0.1", self.args.port), timeout=self.args.timeout)
            self.endpoint = Endpoint(sock, self.ctx, False, self.args.timeout)
            say("CONNECTED")
        elif command == "handshake":
            hold = self.server_side and self.args.max_version == "1.3"
            e.handshake(hold_tail=hold, chunk=int(rest[0]) if rest else 0)
            say("HANDSHAKE", e.obj.version(), "HELD", e.outgoing.pending)
        elif command == "write":
            e.obj.write(line.split(" ", 1)[1].rstrip("\n").encode())
            say("OK")
        elif command == "writepattern":
            n = int(rest[0])
            e.obj.write(pattern(self.pattern_offset, n))
            self.pattern_offset += n
            say("OK")
        elif command == "writecast":
            source, destination, namespace, payload = line.split(" ", 4)[1:]
            e.obj.write(encode_message(source, destination, namespace, payload.rstrip("\n")))
            say("OK")
        elif command == "floodstatus":
            e.obj.write(encode_message("sender-0", "receiver-0", NS_CONNECTION, '{"type":"CONNECT"}'))
            pad = "x" * (int(rest[1]) if len(rest) > 1 else 0)
            for request_id in range(1, int(rest[0]) + 1):
                e.obj.write(encode_message("sender-0", "receiver-0", NS_RECEIVER,
                                           '{"type":"GET_STATUS","requestId":%d,"pad":"%s"}' % (request_id, pad)))
            say("OK")
        elif command == "connectflood":
            # N CONNECTs to receiver-0, each from its own source id (sender-flood-0, sender-flood-1, ...).
            for index in range(int(rest[0])):
                e.obj.write(encode_message("sender-flood-%d" % index, "receiver-0", NS_CONNECTION, '{"type":"CONNECT"}'))
            say("OK")
        elif command == "floodcast":
            count, source, destination, namespace, payload = line.split(" ", 5)[1:]
            frame = encode_message(source, destination, namespace, payload.rstrip("\n"))
            for _ in range(int(count)):
                e.obj.write(frame)
            say("OK")
        elif command == "readcast":
            header = e.read_plain(4)
            if len(header) < 4:
                say("SHORT", header.hex() or "-")
                return True
            body = e.read_plain(struct.unpack("!I", header)[0])
            message = decode_message(body)
            say("CAST", message["namespace"], json.dumps(message["json"], separators=(",", ":")))
        elif command == "ticket":
            if LIBSSL.SSL_new_session_ticket(e.pointer()) != 1:
                raise RuntimeError("SSL_new_session_ticket failed")
            e.obj.do_handshake()
            say("OK")
        elif command == "keyupdate":
            if LIBSSL.SSL_key_update(e.pointer(), int(rest[0])) != 1:
                raise RuntimeError("SSL_key_update failed")
            e.obj.do_handshake()
            say("OK")
        elif command == "flush":
            e.flush()
            say("SENT", e.sent)
        elif command == "flushsplit":
            e.flush(chunk=int(rest[0]), gap=(float(rest[1]) / 1000 if len(rest) > 1 else 0.001))
            say("SENT", e.sent)
        elif command == "read":
            want = int(rest[0])
            got = e.read_plain(want)
            say("READ" if len(got) == want else "SHORT", got.hex() or "-")
        elif command == "readrecords":
            count, plain = e.read_records(int(rest[0]))
            say("RECORDS", count, "PLAIN", plain.hex() or "-")
        elif command == "closenotify":
            try:
                e.obj.unwrap()
            except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                pass
            say("OK")
        elif command == "awaitclose":
            say("CLOSED", "closenotify=%d" % (1 if e.await_close() else 0))
        elif command == "abort":
            if rest and rest[0] == "rst":
                e.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            e.sock.close()
            say("ABORTED")
        elif command == "exit":
            return False
        else:
            raise ValueError("unknown command %r" % command)
        return True


def pattern(offset, count):
    return bytes(((offset + i) * 7 + ((offset + i) >> 8)) & 0xFF for i in range(count))


SEQUENCE = [0]


def say(*words):
    """One answer line. In script mode each line starts with its number (0 for the first line,
    then one per command), so a test can wait for the answer to exactly its command."""
    prefix = [SEQUENCE[0]] if SCRIPT_MODE[0] else []
    SEQUENCE[0] += 1
    sys.stdout.write(" ".join(str(w) for w in prefix + list(words)) + "\n")
    sys.stdout.flush()


SCRIPT_MODE = [False]


# ---------------------------------------------------------------------------------------------
# Device mode: a minimal Cast device

NS_AUTH = "urn:x-cast:com.google.cast.tp.deviceauth"
NS_HEARTBEAT = "urn:x-cast:com.google.cast.tp.heartbeat"
NS_MEDIA = "urn:x-cast:com.google.cast.media"
NS_CONNECTION = "urn:x-cast:com.google.cast.tp.connection"
NS_RECEIVER = "urn:x-cast:com.google.cast.receiver"


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_message(source, destination, namespace, payload):
    """A CastMessage (protobuf): payload is a str (STRING) or bytes (BINARY)."""
    def field(number, data):
        return varint(number << 3 | 2) + varint(len(data)) + data
    out = varint(1 << 3) + varint(0)
    out += field(2, source.encode()) + field(3, destination.encode()) + field(4, namespace.encode())
    if isinstance(payload, str):
        out += varint(5 << 3) + varint(0) + field(6, payload.encode())
    else:
        out += varint(5 << 3) + varint(1) + field(7, payload)
    return struct.pack("!I", len(out)) + out


def decode_message(body):
    fields = {}
    i = 0
    while i < len(body):
        key, i = read_varint(body, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(body, i)
        elif wire == 2:
            length, i = read_varint(body, i)
            value, i = body[i:i + length], i + length
        else:
            raise ValueError("unsupported wire type %d" % wire)
        fields[number] = value
    text = fields.get(6)
    return {
        "source": fields.get(2, b"").decode(), "destination": fields.get(3, b"").decode(),
        "namespace": fields.get(4, b"").decode(), "json": json.loads(text.decode()) if text is not None else None,
    }


def read_varint(data, i):
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, i


AUTH_ERROR = bytes([0x1A, 0x02, 0x08, 0x00])  # DeviceAuthMessage { error { error_type: INTERNAL_ERROR } }


MEDIA_APP = {"appId": "CC1AD845", "displayName": "Default Media Receiver", "isIdleScreen": False,
             "namespaces": [{"name": NS_MEDIA}], "sessionId": "web-5-session", "statusText": "Ready To Cast",
             "transportId": "web-5"}


def receiver_status(request_id, media_app=False):
    return json.dumps({
        "type": "RECEIVER_STATUS", "requestId": request_id,
        "status": {"applications": [MEDIA_APP] if media_app else [],
                   "volume": {"level": 0.5, "muted": False, "controlType": "attenuation", "stepInterval": 0.05},
                   "isActiveInput": True, "isStandBy": False},
    })


def with_request_id(text, request_id):
    """`text` (a JSON object whose only `requestId` member is its own) answering `request_id`: the
    number replaced where it stands, or the member added first; every other byte as it was."""
    match = re.search(r'"requestId"\s*:\s*-?\d+', text)
    if match:
        return text[:match.start()] + '"requestId":%d' % request_id + text[match.end():]
    brace = text.index("{")
    rest = text[brace + 1:]
    separator = "" if rest.lstrip().startswith("}") else ","
    return text[:brace + 1] + '"requestId":%d%s' % (request_id, separator) + rest


class Device:
    def __init__(self, args):
        self.args = args
        self.ctx = make_context(True, args.max_version, args.min_version, args.tickets, args.cert, args.key)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", args.port or 0))
        self.listener.listen(64)
        self.receiver_statuses = [read_text(path) for path in args.receiver_status]
        self.media_statuses = [read_text(path) for path in args.media_status]
        self.lock = threading.Lock()
        self.served = {"receiver": 0, "media": 0}
        say("PORT", self.listener.getsockname()[1])

    def next_text(self, kind, texts):
        """The next of `texts`, cycling (one sequence for every connection)."""
        with self.lock:
            index = self.served[kind]
            self.served[kind] += 1
        return texts[index % len(texts)]

    def run(self):
        while True:
            sock, _ = self.listener.accept()
            threading.Thread(target=self.serve, args=(sock,), daemon=True).start()

    def serve(self, sock):
        if self.args.plain_socket:
            return self.serve_plain(sock)
        try:
            if self.args.behaviour == "no-handshake":
                while sock.recv(65536):
                    pass
                return
            e = Endpoint(sock, self.ctx, True, None)
            coalesce = self.args.coalesce and self.args.max_version == "1.3"
            e.handshake(hold_tail=coalesce)
            buffered = b""
            statuses = 0
            while True:
                # What arrived with the handshake's last flight first, then the socket.
                buffered += e.drain_plain()
                if e.close_notify:
                    return
                while len(buffered) >= 4:
                    length = struct.unpack("!I", buffered[:4])[0]
                    if len(buffered) < 4 + length:
                        break
                    message = decode_message(buffered[4:4 + length])
                    buffered = buffered[4 + length:]
                    if self.args.behaviour == "silent":
                        continue
                    statuses += self.answer(e, message, statuses)
                e.flush()
                data = e.recv_raw()
                if not data:
                    return
                e.feed(data)
        except (OSError, PeerClosed, ssl.SSLError):
            pass
        finally:
            sock.close()

    def serve_plain(self, sock):
        """--plain-socket: OpenSSL on the socket itself (`SSLContext.wrap_socket`), as a device's own
        stack does: every record goes out with its own send (the session tickets after the handshake
        each in a segment of their own), and Nagle's algorithm stays on."""
        class Writer:
            def __init__(self, tls):
                self.tls = tls

            def write(self, data):
                self.tls.sendall(data)

        class PlainEndpoint:
            def __init__(self, tls):
                self.obj = Writer(tls)

            def pointer(self):
                raise RuntimeError("--mid-session needs the memory-BIO device")

        try:
            tls = self.ctx.wrap_socket(sock, server_side=True)
            e = PlainEndpoint(tls)
            buffered = b""
            statuses = 0
            while True:
                data = tls.recv(65536)
                if not data:
                    return
                buffered += data
                while len(buffered) >= 4:
                    length = struct.unpack("!I", buffered[:4])[0]
                    if len(buffered) < 4 + length:
                        break
                    message = decode_message(buffered[4:4 + length])
                    buffered = buffered[4 + length:]
                    statuses += self.answer(e, message, statuses)
        except (OSError, PeerClosed, ssl.SSLError):
            pass
        finally:
            sock.close()

    def answer(self, e, message, statuses):
        """Queues the reply to one message; returns 1 when it was a RECEIVER_STATUS."""
        namespace, body = message["namespace"], message["json"]
        reply_to = (message["destination"], message["source"])
        if namespace == NS_AUTH:
            answer = self.args.auth_answer
            if answer == "oversized":
                # A frame header announcing more than the 64 KiB limit, and a little of its body.
                e.obj.write(struct.pack("!I", 100000) + b"x" * 64)
            elif answer == "garbage":
                # A complete frame whose body is not a CastMessage.
                e.obj.write(struct.pack("!I", 8) + bytes([0xFF] * 8))
            elif answer == "close":
                # close_notify, then the end of the TCP stream.
                try:
                    e.obj.unwrap()
                except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                    pass
                e.flush()
                e.sock.shutdown(socket.SHUT_RDWR)
                raise PeerClosed("closed instead of answering the challenge")
            elif answer == "reset":
                e.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                raise PeerClosed("reset instead of answering the challenge")
            else:
                e.obj.write(encode_message(*reply_to, NS_AUTH, AUTH_ERROR))
        elif namespace == NS_HEARTBEAT and isinstance(body, dict) and body.get("type") == "PING":
            e.obj.write(encode_message(*reply_to, NS_HEARTBEAT, '{"type":"PONG"}'))
        elif namespace == NS_RECEIVER and isinstance(body, dict) and body.get("type") in ("GET_STATUS", "SET_VOLUME"):
            if statuses > 0 and self.args.mid_session == "ticket":
                LIBSSL.SSL_new_session_ticket(e.pointer())
                e.obj.do_handshake()
            elif statuses > 0 and self.args.mid_session == "keyupdate":
                LIBSSL.SSL_key_update(e.pointer(), 0)
                e.obj.do_handshake()
            request_id = body.get("requestId", 0)
            request_id = request_id if isinstance(request_id, int) else 0
            if self.receiver_statuses:
                text = with_request_id(self.next_text("receiver", self.receiver_statuses), request_id)
            else:
                text = receiver_status(request_id, media_app=bool(self.media_statuses))
            e.obj.write(encode_message(*reply_to, NS_RECEIVER, text))
            return 1
        elif (namespace == NS_MEDIA and self.media_statuses and isinstance(body, dict)
              and isinstance(body.get("requestId"), int)):
            text = with_request_id(self.next_text("media", self.media_statuses), body["requestId"])
            e.obj.write(encode_message(*reply_to, NS_MEDIA, text))
        return 0


# ---------------------------------------------------------------------------------------------


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def ensure_certificate(args):
    """A throwaway self-signed certificate from the openssl command when none was given."""
    if args.cert and args.key:
        return
    directory = tempfile.mkdtemp(prefix="castor-openssl-peer-")
    args.cert, args.key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", args.key, "-out", args.cert,
         "-days", "2", "-subj", "/CN=castor-openssl-peer"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["script", "device"])
    parser.add_argument("--role", choices=["server", "client"], default="server")
    parser.add_argument("--port", type=int, default=0, help="client: the port to connect to; device: the port to bind")
    parser.add_argument("--max-version", choices=["1.2", "1.3"], default="1.3")
    parser.add_argument("--min-version", choices=["1.2", "1.3"], default=None)
    parser.add_argument("--tickets", type=int, default=2, help="TLS 1.3 session tickets after the handshake")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--timeout", type=float, default=60, help="safety limit for any one socket wait")
    parser.add_argument("--coalesce", action="store_true", help="device: send the tickets with the first reply")
    parser.add_argument("--mid-session", choices=["none", "ticket", "keyupdate"], default="none",
                        help="device: a NewSessionTicket or KeyUpdate in front of every RECEIVER_STATUS but the first")
    parser.add_argument("--behaviour", choices=["answer", "silent", "no-handshake"], default="answer",
                        help="device: answer, complete TLS and never answer, or never even handshake")
    parser.add_argument("--receiver-status", action="append", default=[], metavar="FILE",
                        help="device: answer the receiver namespace with these RECEIVER_STATUS texts, in turn")
    parser.add_argument("--media-status", action="append", default=[], metavar="FILE",
                        help="device: run a media app answering every media request with these texts, in turn")
    parser.add_argument("--auth-answer", choices=["error", "oversized", "garbage", "close", "reset"], default="error",
                        help="device: answer the device-authentication challenge with an AuthError (as a device without "
                             "credentials), an oversized frame, a frame that is no CastMessage, a close, or a reset")
    parser.add_argument("--plain-socket", action="store_true",
                        help="device: OpenSSL on the socket itself (each record its own send, Nagle on) instead of memory BIOs")
    parser.add_argument("--rcvbuf", type=int, default=0, help="the socket's receive buffer size (0: the system's)")
    args = parser.parse_args()
    RCVBUF[0] = args.rcvbuf
    if LIBSSL is None:
        sys.exit("libssl not found")
    if args.mode == "device" or args.role == "server":
        ensure_certificate(args)
    if args.mode == "script":
        SCRIPT_MODE[0] = True
        Script(args).run()
    else:
        Device(args).run()


if __name__ == "__main__":
    main()
