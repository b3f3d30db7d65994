#!/usr/bin/env bash
# `make bench`: Castor against pychromecast and a raw-TLS floor, in one run, on this machine.
#
# Builds castor-bench in release mode (scratch path .build-release), starts the emulated receivers
# in their own process (reply latency 0), runs our measurements and pychromecast's alternately,
# plus the raw GnuTLS floor, and our connect against OpenSSL devices (TLS 1.3 with session tickets
# against TLS 1.2), prints one table and writes bench/results.json.
# Knobs (environment): BENCH_ROUNDS (alternations, default 5), BENCH_CONNECT_RUNS (connects per
# contender per round, 20), BENCH_SEEK_ROUNDS (5), BENCH_SEEKS (SEEKs per contender per round, 1000),
# BENCH_DEVICES (1000), BENCH_DECODE_ROUNDS (3), BENCH_THROUGHPUT_DEVICES (100), BENCH_THROUGHPUT_SECONDS (5),
# BENCH_THROUGHPUT_ROUNDS (2), BENCH_ADMISSION_ROUNDS (3), BENCH_ADMISSION_RUNS (connects per round, 10),
# CASTOR_PYTHON (the venv's python), BENCH_CONVERT_ROUNDS (3; 0 skips section 7), BENCH_CONVERT_SECONDS (60, the
# length of its clips).
#
# 7. casting local files: castctl cast (release build) against VLC 3's chromecast output, in a private network
# namespace (root; VLC as an unprivileged user), to cast-receiver --profile chromecast-3 --fetch-media: time to
# PLAYING for a direct file, a remux and a full transcode, and CPU seconds per minute of media converted.
set -euo pipefail
cd "$(dirname "$0")/.."

# 8. Mirroring (Cast Streaming): castctl mirror/audio and Google's Open Screen sender (cast-sender) against
# cast-receiver, and the live-HLS path Linux users have today; release builds of castctl and cast-receiver.
# Knobs: BENCH_MIRROR_ROUNDS (3), BENCH_MIRROR_SECONDS (15). This section alone: scripts/bench.sh mirroring.
mirroring_section() {
    local scratch=${CASTOR_BENCH_SCRATCH:-.build-release} python=${CASTOR_PYTHON:-$PWD/.venv/bin/python}
    echo "== 8. mirroring: building castctl and cast-receiver (release, $scratch)" >&2
    swift build -c release --scratch-path "$scratch" --product castctl >&2
    swift build -c release --scratch-path "$scratch" --product cast-receiver >&2
    mkdir -p bench
    "$python" Tests/Benchmarks/mirroring_bench.py --castctl "$scratch/release/castctl" --receiver "$scratch/release/cast-receiver" \
        --driver Tests/InteropTests/cast_sender_driver.py --rounds "${BENCH_MIRROR_ROUNDS:-3}" --seconds "${BENCH_MIRROR_SECONDS:-15}" \
        --output bench/mirroring.json >/dev/null
}
if [[ "${1:-}" == mirroring ]]; then
    mirroring_section
    exit 0
fi

SCRATCH=${CASTOR_BENCH_SCRATCH:-.build-release}
PYTHON=${CASTOR_PYTHON:-$PWD/.venv/bin/python}
ROUNDS=${BENCH_ROUNDS:-5}
CONNECT_RUNS=${BENCH_CONNECT_RUNS:-20}
SEEK_ROUNDS=${BENCH_SEEK_ROUNDS:-5}
SEEKS=${BENCH_SEEKS:-1000}
DEVICES=${BENCH_DEVICES:-1000}
DECODE_ROUNDS=${BENCH_DECODE_ROUNDS:-3}
THROUGHPUT_DEVICES=${BENCH_THROUGHPUT_DEVICES:-100}
THROUGHPUT_SECONDS=${BENCH_THROUGHPUT_SECONDS:-5}
THROUGHPUT_ROUNDS=${BENCH_THROUGHPUT_ROUNDS:-2}
ADMISSION_ROUNDS=${BENCH_ADMISSION_ROUNDS:-3}
ADMISSION_RUNS=${BENCH_ADMISSION_RUNS:-10}
FIXTURE=Tests/Benchmarks/media_status.json
PYBENCH=Tests/Benchmarks/pychromecast_bench.py

[[ -x "$PYTHON" ]] || { echo "bench: no python at $PYTHON (run scripts/bootstrap.sh test)" >&2; exit 1; }
echo "== building castor-bench (release, $SCRATCH)" >&2
build_start=$(date +%s)
swift build -c release --scratch-path "$SCRATCH" --product castor-bench >&2
build_seconds=$(( $(date +%s) - build_start ))
echo "== built in $build_seconds s" >&2
BIN="$SCRATCH/release/castor-bench"

# 1 000 devices need ~2 000 descriptors in the receivers' process and 1 000 in ours.
hard=$(ulimit -Hn)
if [[ "$hard" == unlimited || "$hard" -gt 65536 ]]; then ulimit -n 65536; else ulimit -n "$hard"; fi

work=$(mktemp -d)
mkdir -p bench
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Starts `castor-bench serve` with the given arguments (in this shell, so cleanup can stop it);
# leaves its ready line in $READY.
serve() {
    local out="$work/serve.${#servers[@]}"
    "$BIN" serve "$@" >"$out" 2>"$out.err" &
    local pid=$!
    servers+=("$pid")
    for _ in $(seq 1 600); do
        if [[ -s "$out" ]]; then READY=$(head -n1 "$out"); return 0; fi
        kill -0 "$pid" 2>/dev/null || { cat "$out.err" >&2; return 1; }
        sleep 0.1
    done
    echo "bench: the receivers did not start" >&2
    return 1
}

field() { "$PYTHON" -c 'import json,sys; v=json.loads(sys.argv[1])[sys.argv[2]]; print(",".join(map(str,v)) if isinstance(v,list) else v)' "$1" "$2"; }

RAW="$work/raw.jsonl"
# record LABEL ROUND COMMAND...: runs a measurement and appends {"label","round","data"} to $RAW.
record() {
    local label=$1 round=$2
    shift 2
    local out
    echo "   $label (round $round)" >&2
    out=$("$@")
    printf '{"label":"%s","round":%s,"data":%s}\n' "$label" "$round" "$out" >>"$RAW"
}

echo "== starting one emulated receiver (reply latency 0) and the echo server" >&2
serve --count 1 --latency-ms 0
ready=$READY
PORT=$(field "$ready" ports)
ECHO=$(field "$ready" echo)
echo "   receiver on $PORT, echo on $ECHO" >&2

echo "== 1. connect -> first RECEIVER_STATUS: $ROUNDS rounds x $CONNECT_RUNS connects each" >&2
for round in $(seq 1 "$ROUNDS"); do
    record ours_connect_off "$round" "$BIN" connect --port "$PORT" --runs "$CONNECT_RUNS" --auth off
    record py_connect "$round" "$PYTHON" "$PYBENCH" connect --port "$PORT" --runs "$CONNECT_RUNS"
    record floor_connect "$round" "$BIN" connect --kind floor --port "$ECHO" --runs "$CONNECT_RUNS" --request-bytes 160 --reply-bytes 600
    record ours_connect_report "$round" "$BIN" connect --port "$PORT" --runs "$CONNECT_RUNS" --auth report
done

echo "== 5. connect -> first RECEIVER_STATUS against OpenSSL devices (Python ssl): TLS 1.3 with 2 tickets, TLS 1.2" >&2
# openssl_peer.py device prints "PORT n"; the two run until cleanup.
openssl_device() {
    local out="$work/openssl.${#servers[@]}"
    "$PYTHON" Tests/Peers/openssl_peer.py device "$@" >"$out" 2>"$out.err" &
    servers+=("$!")
    for _ in $(seq 1 600); do
        if [[ -s "$out" ]]; then OPENSSL_PORT=$(awk '/^PORT /{print $2; exit}' "$out"); return 0; fi
        sleep 0.1
    done
    cat "$out.err" >&2
    return 1
}
openssl_device --max-version 1.3 --tickets 2
TLS13=$OPENSSL_PORT
openssl_device --max-version 1.2
TLS12=$OPENSSL_PORT
for round in $(seq 1 "$ROUNDS"); do
    record ours_openssl_tls13 "$round" "$BIN" connect --port "$TLS13" --runs "$CONNECT_RUNS" --auth off
    record ours_openssl_tls12 "$round" "$BIN" connect --port "$TLS12" --runs "$CONNECT_RUNS" --auth off
done
# The same against OpenSSL on the socket itself (--plain-socket): every record its own send, so the TLS 1.3
# tickets after the handshake arrive as separate segments, and Nagle's algorithm stays on, as on a device's
# own stack. With auth report, as castctl connects: a reply waited 40 ms for our delayed ACK of a ticket.
openssl_device --max-version 1.3 --tickets 2 --plain-socket
PLAIN13=$OPENSSL_PORT
openssl_device --max-version 1.2 --plain-socket
PLAIN12=$OPENSSL_PORT
for round in $(seq 1 "$ROUNDS"); do
    record ours_openssl_plain_tls13 "$round" "$BIN" connect --port "$PLAIN13" --runs "$CONNECT_RUNS" --auth report
    record ours_openssl_plain_tls12 "$round" "$BIN" connect --port "$PLAIN12" --runs "$CONNECT_RUNS" --auth report
done

echo "== 2. SEEK -> MEDIA_STATUS: $SEEK_ROUNDS rounds x $SEEKS each" >&2
for round in $(seq 1 "$SEEK_ROUNDS"); do
    record ours_seek "$round" "$BIN" seek --port "$PORT" --count "$SEEKS" --auth off
    sizes=$(tail -n1 "$RAW")
    request_bytes=$("$PYTHON" -c 'import json,sys; print(json.loads(sys.argv[1])["data"]["request_bytes"])' "$sizes")
    reply_bytes=$("$PYTHON" -c 'import json,sys; print(json.loads(sys.argv[1])["data"]["reply_bytes"])' "$sizes")
    record py_seek "$round" "$PYTHON" "$PYBENCH" seek --port "$PORT" --count "$SEEKS"
    record floor_rtt "$round" "$BIN" floor-rtt --port "$ECHO" --count "$SEEKS" --request-bytes "$request_bytes" --reply-bytes "$reply_bytes"
done

# seek_rounds SUFFIX CPU [CALLER]: the three contenders' SEEK rounds, recorded as ours_seek_SUFFIX,
# py_seek_SUFFIX and floor_rtt_SUFFIX; each under `taskset -c CPU` unless CPU is empty, and ours and the
# floor with `--caller CALLER` (default pool; pychromecast's threads are fixed).
seek_rounds() {
    local suffix=$1 cpu=$2 caller=${3:-pool} round pin=()
    [[ -n "$cpu" ]] && pin=(taskset -c "$cpu")
    for round in $(seq 1 "$SEEK_ROUNDS"); do
        record "ours_seek_$suffix" "$round" "${pin[@]}" "$BIN" seek --port "$PORT" --count "$SEEKS" --auth off --caller "$caller"
        record "py_seek_$suffix" "$round" "${pin[@]}" "$PYTHON" "$PYBENCH" seek --port "$PORT" --count "$SEEKS"
        record "floor_rtt_$suffix" "$round" "${pin[@]}" "$BIN" floor-rtt --port "$ECHO" --count "$SEEKS" \
            --request-bytes "$request_bytes" --reply-bytes "$reply_bytes" --caller "$caller"
    done
}

# The same round trips with everything on one core: the receivers' process, ours, pychromecast and
# the floor's client all under `taskset -c 0`. On a two-vCPU virtual machine a hand-off to a thread
# whose vCPU is idle costs tens of microseconds and varies from run to run; on one core every hand-off
# is a context switch, so this row compares the work each contender does per round trip.
if command -v taskset >/dev/null; then
    echo "== 2b. SEEK -> MEDIA_STATUS on one core (taskset -c 0): $SEEK_ROUNDS rounds x $SEEKS each" >&2
    serve_pid=${servers[0]}
    taskset -a -p -c 0 "$serve_pid" >/dev/null
    seek_rounds one_core 0
    # The receivers and the sender each on a core of their own (the receivers' process on core 0, every
    # contender on core 1): a sender and a Cast device are two machines. Unpinned, the scheduler puts
    # the five threads of a round trip on one core for some runs and spreads them for others, and a
    # wake-up on an idle core costs tens of microseconds on a virtual machine; here every contender
    # pays the same two cross-core wake-ups per round trip, in every round.
    if (( $(nproc) >= 2 )); then
        echo "== 2c. SEEK -> MEDIA_STATUS, receivers on core 0, sender on core 1: $SEEK_ROUNDS rounds x $SEEKS each" >&2
        seek_rounds two_cores 1
    fi
    taskset -a -p -c "0-$(( $(nproc) - 1 ))" "$serve_pid" >/dev/null
fi

# Unpinned again, with each caller on its connection's event loop: ours in a task that prefers the
# connection's task executor (`withTaskExecutorPreference(connection.transport.taskExecutor)`), the floor's
# client on its channel's loop the same way; pychromecast as in row 2 (its socket thread and caller are
# fixed). A reply then resumes its caller on the thread that decoded it: one thread per side.
echo "== 2d. SEEK -> MEDIA_STATUS, callers on the connection's event loop: $SEEK_ROUNDS rounds x $SEEKS each" >&2
seek_rounds loop "" loop

echo "== 4. decoding a MEDIA_STATUS, one core (taskset -c 0): $DECODE_ROUNDS rounds" >&2
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
for round in $(seq 1 "$DECODE_ROUNDS"); do
    record ours_decode "$round" "${pin[@]}" "$BIN" decode --fixture "$FIXTURE"
    record py_decode "$round" "${pin[@]}" "$PYTHON" "$PYBENCH" decode --fixture "$FIXTURE"
done

echo "== 6. throughput: $THROUGHPUT_DEVICES devices, SEEKs back to back for $THROUGHPUT_SECONDS s: $THROUGHPUT_ROUNDS rounds" >&2
serve --count "$THROUGHPUT_DEVICES" --latency-ms 0
tports=$("$PYTHON" -c 'import json,sys; print(",".join(map(str, json.loads(sys.argv[1])["ports"])))' "$READY")
for round in $(seq 1 "$THROUGHPUT_ROUNDS"); do
    record ours_throughput "$round" "$BIN" throughput --ports "$tports" --seconds "$THROUGHPUT_SECONDS" --auth off
    record py_throughput "$round" "$PYTHON" "$PYBENCH" throughput --ports "$tports" --seconds "$THROUGHPUT_SECONDS"
    record ours_throughput_loop "$round" "$BIN" throughput --ports "$tports" --seconds "$THROUGHPUT_SECONDS" --auth off --caller loop
done

echo "== 3. $DEVICES devices held at once (receivers in another process)" >&2
serve --count "$DEVICES" --latency-ms 0
ready=$READY
first=$("$PYTHON" -c 'import json,sys; print(json.loads(sys.argv[1])["ports"][0])' "$ready")
ports=$("$PYTHON" -c 'import json,sys; print(",".join(map(str, json.loads(sys.argv[1])["ports"])))' "$ready")
tenth=$("$PYTHON" -c 'import json,sys; p=json.loads(sys.argv[1])["ports"]; print(",".join(map(str, p[:max(1,len(p)//10)])))' "$ready")
record hold_tenth 1 "$BIN" hold --ports "$tenth" --auth off --hold-seconds 6
record hold_all 1 "$BIN" hold --ports "$ports" --auth off --hold-seconds 6
ECHO_MANY=$(field "$ready" echo)
record hold_floor 1 "$BIN" hold --kind floor --port "$ECHO_MANY" --devices "$DEVICES"
record hold_all_report 1 "$BIN" hold --ports "$ports" --auth report --hold-seconds 6

CONVERT_ROUNDS=${BENCH_CONVERT_ROUNDS:-3}
CONVERT_SECONDS=${BENCH_CONVERT_SECONDS:-60}
if (( CONVERT_ROUNDS > 0 )); then
    if [[ $(id -u) -ne 0 ]] || ! command -v cvlc >/dev/null || ! command -v ffmpeg >/dev/null || ! command -v unshare >/dev/null; then
        echo "== 7. casting local files: skipped (needs root for a network namespace, cvlc, ffmpeg and unshare)" >&2
    else
        echo "== 7. casting local files: castctl and VLC 3, $CONVERT_ROUNDS rounds, ${CONVERT_SECONDS} s clips" >&2
        swift build -c release --scratch-path "$SCRATCH" --product castctl >&2
        swift build -c release --scratch-path "$SCRATCH" --product cast-receiver >&2
        media="$SCRATCH/bench-media-${CONVERT_SECONDS}s"
        mkdir -p "$media"
        clip() {  # clip NAME VIDEO-CODEC-ARGS... -- AUDIO-CODEC-ARGS...: 1280x720 at 25 fps with a 1 kHz tone
            local name=$1; shift
            [[ -s "$media/$name" ]] && return 0
            local video=() audio=()
            while [[ $1 != -- ]]; do video+=("$1"); shift; done; shift
            audio=("$@")
            ffmpeg -v error -nostdin -y -f lavfi -i "testsrc2=size=1280x720:rate=25:duration=$CONVERT_SECONDS" \
                -f lavfi -i "sine=frequency=1000:sample_rate=48000:duration=$CONVERT_SECONDS" \
                "${video[@]}" -pix_fmt yuv420p -g 50 "${audio[@]}" -ac 2 "$media/$name"
        }
        clip direct.mp4 -c:v libx264 -preset veryfast -- -c:a aac -b:a 160k
        clip remux.mkv -c:v libx264 -preset veryfast -- -c:a ac3 -b:a 384k
        clip transcode.mkv -c:v libx265 -preset ultrafast -x265-params log-level=error -- -c:a ac3 -b:a 384k
        id castor-interop >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin castor-interop
        convert_work=$(mktemp -d)
        chmod 755 "$media"
        for f in "$media"/*; do chmod 644 "$f"; done
        unshare -n -- python3 Tests/InteropTests/cast_convert_driver.py bench \
            --receiver "$SCRATCH/release/cast-receiver" --castctl "$SCRATCH/release/castctl" --workdir "$convert_work" \
            --user castor-interop --rounds "$CONVERT_ROUNDS" --cpu-rounds "$CONVERT_ROUNDS" --profile chromecast-3 \
            --direct "$media/direct.mp4" --remux "$media/remux.mkv" --transcode "$media/transcode.mkv" \
            | while IFS= read -r line; do
                case "$line" in
                    '{"measure"'*) printf '{"label":"convert","round":0,"data":%s}\n' "$line" >>"$RAW"; echo "   $line" | cut -c1-160 >&2 ;;
                    '{"check"'*) echo "   $line" >&2 ;;
                esac
            done
        rm -rf "$convert_work"
    fi
fi

# A real sender among idle TCP connections that hold the receiver's descriptors (each one it closes is
# replaced at once): the receivers' process under `prlimit`, 100 idlers at 64 descriptors and 1 000 at
# 1 024 (the usual default soft limit); connect -> RECEIVER_STATUS with auth report, as castctl status.
echo "== 9. a sender among idle connections: 100 under 64 descriptors, 1 000 under 1 024: $ADMISSION_ROUNDS rounds x $ADMISSION_RUNS" >&2
admission() {  # admission LABEL LIMIT IDLERS
    local label=$1 limit=$2 idlers=$3 apid aport round
    serve --count 1 --latency-ms 0
    apid=$(field "$READY" pid)
    aport=$(field "$READY" ports)
    prlimit --pid "$apid" --nofile="$limit:$limit"
    for round in $(seq 1 "$ADMISSION_ROUNDS"); do
        record "$label" "$round" "$BIN" admission --port "$aport" --idlers "$idlers" --runs "$ADMISSION_RUNS" --auth report
    done
    kill "$apid" 2>/dev/null || true
}
if command -v prlimit >/dev/null; then
    admission admission_100_at_64 64 100
    admission admission_1000_at_1024 1024 1000
fi

"$PYTHON" Tests/Benchmarks/report.py "$RAW" bench/results.json \
    --build-seconds "$build_seconds" --command "make bench" \
    --rounds "$ROUNDS" --connect-runs "$CONNECT_RUNS" --seek-rounds "$SEEK_ROUNDS" --seeks "$SEEKS" --devices "$DEVICES"

mirroring_section
