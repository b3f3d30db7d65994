#!/usr/bin/env bash
# Builds Castor's libFuzzer targets (Tests/Fuzz) and runs them.
#   scripts/fuzz.sh run SECONDS   – run every target for SECONDS in total (0 = until Ctrl-C, one target at a time)
# Crashes are written to fuzz/crashes/<target>/ and make the script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${2:-60}"
scratch="$PWD/.build-fuzz"
# SwiftPM passes `--sanitize` values to the compiler as separate `-sanitize=` flags, in an order
# that varies from build to build, and the frontend got only the last one: half the builds had no coverage instrumentation
# (libFuzzer ran blind) and the other half no AddressSanitizer. The combined flag, added last,
# always wins; `--sanitize` stays so that SwiftPM links libFuzzer's `main`.
swift build --package-path Tests/Fuzz --scratch-path "$scratch" -c debug \
  --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address 2>&1 \
  | grep -vE "^\[|^Building|^Compiling|prohibited flag" || true
targets=$(sed -n 's/.*name: "\(Fuzz[A-Za-z]*\)".*/\1/p' Tests/Fuzz/Package.swift)
n=$(echo "$targets" | wc -w)
per=$(( seconds > 0 ? (seconds + n - 1) / n : 0 ))
status=0
for t in $targets; do
  bin="$scratch/debug/$t"
  [ -x "$bin" ] || { echo "fuzz: $t was not built"; exit 1; }
  corpus="fuzz/corpus-$t"; crashes="fuzz/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  seeds="Tests/Fuzz/Seeds/$t"
  args=(-artifact_prefix="$crashes/" -print_final_stats=1 -rss_limit_mb=4096)
  [ "$per" -gt 0 ] && args+=(-max_total_time="$per")
  echo "fuzz: running $t for ${per:-unlimited}s"
  if ! "$bin" "${args[@]}" "$corpus" $( [ -d "$seeds" ] && echo "$seeds" ) > "fuzz/$t.log" 2>&1; then
    echo "fuzz: $t FAILED — see fuzz/$t.log and $crashes"; tail -30 "fuzz/$t.log"; status=1
  elif ! grep -q "INITED cov:" "fuzz/$t.log"; then
    echo "fuzz: $t FAILED — libFuzzer saw no coverage counters: the binary was built without -sanitize=fuzzer instrumentation"
    status=1
  else
    echo "fuzz: $t ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "fuzz/$t.log" | grep -o '[0-9]*$') runs, no crash)"
  fi
done
exit $status
