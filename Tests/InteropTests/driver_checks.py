"""What every peer driver of InteropTests shares: the check lines the Swift tests read, and polling.

A driver prints one JSON object per check, {"check": name, "ok": bool, "detail": text}, then
{"done": true}; the Swift test asserts every check. Imported from the drivers' own folder (Python puts
a script's folder first on its path), so it works however the driver is started (`ip netns exec`, `su`).
"""
import json
import sys
import time


def report(name, ok, detail="", limit=3000):
    """Prints one check; `detail` keeps its last `limit` characters (the end of a log says most)."""
    print(json.dumps({"check": name, "ok": bool(ok), "detail": str(detail)[-limit:]}), flush=True)


def wait_for(predicate, timeout=15.0, interval=0.05):
    """Polls a peer's view of the device until `predicate()` is true or `timeout` seconds pass.

    The sender libraries driven here offer no completion events, so their state is polled. A predicate
    that raises (a status field not there yet) counts as false.
    """
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if predicate():
                return True
        except Exception:
            pass
        time.sleep(interval)
    return False


def run(main):
    """Runs `main`; an exception is reported as a failed check (never hidden) and exits 1."""
    try:
        main()
    except Exception as error:  # report, don't hide: the Swift test fails on it
        report("exception", False, repr(error))
        sys.exit(1)
