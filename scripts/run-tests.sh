#!/bin/bash
# Runs the whole test suite, one test at a time, within TEST_TIME_LIMIT seconds (default 1800).
#
# Output is line-buffered, so the last "◇ Test … started." line names a test that hangs (with the
# default block buffering, the last 4 KiB were lost when the run was killed). Past the limit, every
# thread's backtrace of the test process is printed, the run is killed and the script fails.
#
# The output goes to a file, shown as it grows (`tail -f`, until the test process ends), and a failed
# run ends by repeating every issue it recorded (the "✘ … recorded an issue" lines with their "↳"
# comments and those comments' further lines): a CI log shown only by its tail then still names the
# failing test, which otherwise scrolled by thousands of lines earlier. The file is complete once the
# test process has exited (it writes the file itself), so the summary misses nothing.
set -u
SWIFT="${SWIFT:-swift}"
limit="${TEST_TIME_LIMIT:-1800}"
log="$(mktemp "${TMPDIR:-/tmp}/castor-tests.XXXXXX")"
trap 'rm -f "$log"' EXIT

stdbuf -oL -eL "$SWIFT" test --skip-build --no-parallel "$@" >"$log" 2>&1 &
run=$!
# Prints the file as it grows; ends, with everything printed, within 0.2 s of the test process.
tail -n +1 -s 0.2 -f --pid="$run" "$log" &
shower=$!

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
wait "$shower"
if [ "$status" -ne 0 ]; then
    echo "run-tests: the run failed (exit $status); the issues it recorded:"
    # An issue's line, its "↳" comments, and their further lines (a multi-line comment goes on with
    # indented lines), up to the next line of another kind.
    awk '/^✘ Test .* recorded an issue/ { print; keep = 1; next }
         keep && /^(↳|[ \t])/ { print; next }
         { keep = 0 }' "$log" | cut -c1-2000 | head -n 400
    grep -E '^✘ Test .* failed after' "$log" | cut -c1-300
fi
exit "$status"
