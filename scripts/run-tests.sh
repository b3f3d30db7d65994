#!/bin/bash
# Runs the whole test suite, one test at a time, within TEST_TIME_LIMIT seconds (default 1800).
#
# Output is line-buffered, so the last "◇ Test … started." line names a test that hangs (with the
# default block buffering, the last 4 KiB were lost when the run was killed). Past the limit, every
# thread's backtrace of the test process is printed, the run is killed and the script fails.
set -u
SWIFT="${SWIFT:-swift}"
limit="${TEST_TIME_LIMIT:-1800}"

stdbuf -oL -eL "$SWIFT" test --skip-build --no-parallel "$@" &
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
exit "$status"
