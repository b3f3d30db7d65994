"""A UDP relay that loses a share of what it forwards, for Cast Streaming tests under packet loss.

Listens on 127.0.0.1 (a free port, printed as {"port": N}); datagrams from the sender are forwarded
to 127.0.0.1:--target, all but --loss of them (seeded, so runs repeat); datagrams from the target go
back, unharmed, to the sender's address. Prints {"forwarded": N, "dropped": M, "returned": K} and exits
on SIGTERM or after --lifetime seconds.
"""
import argparse
import json
import random
import select
import signal
import socket
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", type=int, required=True)
    parser.add_argument("--loss", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--lifetime", type=float, default=120)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    print(json.dumps({"port": sock.getsockname()[1]}), flush=True)
    target = ("127.0.0.1", args.target)
    sender = None
    counts = {"forwarded": 0, "dropped": 0, "returned": 0}
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    end = time.monotonic() + args.lifetime
    while not stopping and time.monotonic() < end:
        ready, _, _ = select.select([sock], [], [], 0.2)
        if not ready:
            continue
        data, source = sock.recvfrom(65535)
        if source == target:
            if sender is not None:
                sock.sendto(data, sender)
                counts["returned"] += 1
            continue
        sender = source
        if rng.random() < args.loss:
            counts["dropped"] += 1
            continue
        sock.sendto(data, target)
        counts["forwarded"] += 1
    print(json.dumps(counts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
