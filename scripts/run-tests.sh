#!/bin/bash
# Runs the whole test suite, one test at a time, within TEST_TIME_LIMIT seconds (default 1800).
#
# Output is line-buffered, so the last "◇ Test … started." line names a test that hangs (with the
# default block buffering, the last 4 KiB were lost when the run was killed). Past the limit, every
# thread's backtrace of the test process is printed, the run is killed and the script fails.
#
# The output is also kept in a file, and a failed run ends by repeating every issue it recorded (the
# "✘ … recorded an issue" lines and their "↳" comments): a CI log shown only by its tail then still
# names the failing test, which otherwise scrolled by thousands of lines earlier.
set -u
SWIFT="${SWIFT:-swift}"
limit="${TEST_TIME_LIMIT:-1800}"
log="$(mktemp "${TMPDIR:-/tmp}/castor-tests.XXXXXX")"
trap 'rm -f "$log"' EXIT

stdbuf -oL -eL "$SWIFT" test --skip-build --no-parallel "$@" > >(stdbuf -oL tee "$log") 2>&1 &
run=$!

# This run's processes (swift-test's descendants, including programs the tests started), never another run's.
descendants() {
    local all="" frontier="$run" next parent
    while [ -n "$frontier" ]; do
        next=""
        for parent in $frontier; do next="$next $(pgrep -P "$parent")"; done
        frontier=$(echo $next)
        all="$all $frontier"
    done
    echo $all
}

watchdog() {
    local sleeper pid
    trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
    sleep "$limit" >/dev/null 2>&1 </dev/null &
    sleeper=$!
    wait "$sleeper"
    echo "run-tests: the test run exceeded ${limit} s; backtraces of the test process follow" >&2
    for pid in $(descendants); do
        grep -q 'PackageTests\.xctest' "/proc/$pid/cmdline" 2>/dev/null || continue
        if command -v gdb >/dev/null; then
            gdb -p "$pid" -batch -ex 'set complaints 0' -ex 'thread apply all bt 25' 2>&1 | grep -v '^\[New LWP' | tail -n 600 >&2
        else
            lldb -p "$pid" --batch -o 'thread backtrace all -c 25' 2>&1 | tail -n 600 >&2
        fi
    done
    # Stop the whole tree first so nothing starts a new child while it is being killed.
    local tree
    tree="$(descendants)"
    kill -STOP "$run" $tree 2>/dev/null
    kill -KILL "$run" $tree $(descendants) 2>/dev/null
}
watchdog &
guard=$!

wait "$run"
status=$?
kill "$guard" 2>/dev/null
wait "$guard" 2>/dev/null
sleep 0.2   # let tee write the last lines
if [ "$status" -ne 0 ]; then
    echo "run-tests: the run failed (exit $status); the issues it recorded:"
    awk '/^✘ Test .* recorded an issue/ { print; keep = 1; next }
         keep && /^↳/ { print; next }
         { keep = 0 }' "$log" | cut -c1-2000
    grep -E '^✘ Test .* failed after' "$log" | cut -c1-300
fi
exit "$status"
