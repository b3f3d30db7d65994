#!/usr/bin/env bash
# Instructions per SEEK round trip on each side, counted by callgrind (part of `make bench`).
#
# Usage: scripts/bench-callgrind.sh BIN [SERVE_BIN]
#   BIN        the castor-bench whose sender side is counted (and whose receivers serve it)
#   SERVE_BIN  the castor-bench whose emulated receiver is counted (default BIN)
# Sender: `BIN seek` runs under callgrind twice, with FEW and MANY SEEKs against a receiver running
# natively; (instructions(MANY) - instructions(FEW)) / (MANY - FEW) is what one more SEEK costs,
# everything around it (start, TLS, launch, load) cancelling out. Receiver: the same difference
# with the receiver's process under callgrind (zeroed and dumped around each client run by
# callgrind_control) and the client native. Prints one JSON line.
# Knobs: CALLGRIND_FEW (100), CALLGRIND_MANY (600).
set -euo pipefail
BIN=$1
SERVE_BIN=${2:-$1}
FEW=${CALLGRIND_FEW:-100}
MANY=${CALLGRIND_MANY:-600}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Starts a receiver (optionally under callgrind); sets PORT and SERVE_PID.
serve() {
    local out="$work/serve.${#pids[@]}"
    "$@" serve --count 1 --latency-ms 0 >"$out" 2>"$out.err" &
    pids+=("$!")
    for _ in $(seq 1 1200); do
        if [[ -s "$out" ]]; then
            PORT=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ports"][0])' "$(head -n1 "$out")")
            SERVE_PID=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["pid"])' "$(head -n1 "$out")")
            return 0
        fi
        sleep 0.1
    done
    cat "$out.err" >&2
    return 1
}

# Total instructions in a callgrind output file (all threads: --separate-threads=no).
total() { awk '/^summary:|^totals:/ {print $2; exit}' "$1"; }

# Sender side.
serve "$SERVE_BIN"
sender=()
for count in "$FEW" "$MANY"; do
    valgrind --tool=callgrind --callgrind-out-file="$work/sender.$count" "$BIN" seek --port "$PORT" --count "$count" --auth off \
        >/dev/null 2>"$work/sender.$count.err"
    sender+=("$(total "$work/sender.$count")")
done
kill "${pids[@]}" 2>/dev/null || true
wait 2>/dev/null || true
pids=()

# Receiver side: zero the counters, run a native client, dump.
serve valgrind --tool=callgrind --callgrind-out-file="$work/receiver.%p" "$SERVE_BIN"
receiver=()
for count in "$FEW" "$MANY"; do
    callgrind_control -z "$SERVE_PID" >/dev/null
    "$BIN" seek --port "$PORT" --count "$count" --auth off >/dev/null
    callgrind_control -d "$SERVE_PID" >/dev/null
    sleep 1
    latest=$(ls -t "$work"/receiver."$SERVE_PID"* | head -n1)
    receiver+=("$(total "$latest")")
done

python3 - "$FEW" "$MANY" "${sender[@]}" "${receiver[@]}" <<'PY'
import json, sys
few, many, s_few, s_many, r_few, r_many = (int(v) for v in sys.argv[1:7])
print(json.dumps({"seeks_few": few, "seeks_many": many,
                  "sender_instructions": [s_few, s_many], "receiver_instructions": [r_few, r_many],
                  "sender_per_seek": (s_many - s_few) / (many - few), "receiver_per_seek": (r_many - r_few) / (many - few)}))
PY
