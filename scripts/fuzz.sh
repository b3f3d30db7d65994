#!/usr/bin/env bash
# Builds Castor's libFuzzer targets (Tests/Fuzz) and runs them. See Modules/Castor/Castor.docc/Fuzzing.md.
#
#   scripts/fuzz.sh build                         build every target (instrumented for libFuzzer and AddressSanitizer)
#   scripts/fuzz.sh list                          print the target names
#   scripts/fuzz.sh run SECONDS [TARGET...]       short run (CI): each target for SECONDS (0 = until Ctrl-C, one at a
#                                                 time), FUZZ_JOBS targets at once, from the committed corpus and seeds
#   scripts/fuzz.sh campaign HOURS [TARGET[=WEIGHT]...]
#                                                 long run: every target (or those named) in turn, HOURS in total
#                                                 shared by weight (default 1), FUZZ_JOBS parallel jobs, starting from
#                                                 the target's full corpus (its archive, unpacked); then merges what was
#                                                 found into the archive and the in-tree corpus, minimizes findings and
#                                                 prints a summary per target
#   scripts/fuzz.sh merge [TARGET...]             merge fuzz/corpus-<target> into the target's archive and re-minimize
#                                                 its in-tree corpus from it
#   scripts/fuzz.sh unpack [TARGET...]            unpack each target's archive into fuzz/corpus-<target>
#   scripts/fuzz.sh minimize TARGET FILE          minimize a crashing input (-minimize_crash=1) next to it
#   scripts/fuzz.sh reproduce TARGET FILE...      run a target on inputs (a finding, a regression file)
#
# Targets are the directories Tests/Fuzz/Sources/Fuzz*; each reads Tests/Fuzz/Seeds/<target>/ (hand-made
# seeds), Tests/Fuzz/Corpus/<target>/ (the committed corpus, minimized to the fewest inputs that keep every edge)
# and Tests/Fuzz/Dictionaries/<target>.dict (tokens of its input language) when they exist, and writes new inputs
# to the untracked fuzz/corpus-<target>/. The campaigns' full corpora (every feature libFuzzer tells apart) are kept
# as one archive per target, Tests/Fuzz/Archive/<target>.tar.xz: `campaign` unpacks it into fuzz/corpus-<target>
# before the target's run and writes it again after. A target without an archive works the same way: its in-tree
# corpus is then all it has. Findings go to fuzz/crashes/<target>/ and make `run` and `campaign` fail.
#
# Environment: FUZZ_NO_BUILD (set: `run` uses the fuzzers as built, as make test does after building them beside
# the tests; a build plans again and takes minutes), FUZZ_JOBS (parallel jobs in a campaign, targets at once in a short
# run; default: the number of cores), FUZZ_RUNS (a campaign
# stops each target after this many executions in total, whichever comes first with the time), FUZZ_MAX_FINDINGS
# (a campaign goes on after a finding, in new rounds of jobs, until the time is up or this many, default 10), FUZZ_RSS_MB
# (default 2048: an input that makes the process grow past it is a finding), FUZZ_TIMEOUT (default 10 seconds
# per input: a slower input is a finding), FUZZ_MAX_LEN (largest input libFuzzer generates, default 16384),
# FUZZ_CONFIGURATION (release, the default, or debug).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
scratch="$root/.build-fuzz"
rss_mb="${FUZZ_RSS_MB:-2048}"
timeout_s="${FUZZ_TIMEOUT:-10}"
max_len="${FUZZ_MAX_LEN:-16384}"
jobs="${FUZZ_JOBS:-$(nproc)}"
# Release code runs two to four times as many inputs per second as debug code (measured on FuzzCastFrame,
# FuzzJSON and FuzzReceiverRequests); overflow and bounds checks stay, and AddressSanitizer is on in both.
configuration="${FUZZ_CONFIGURATION:-release}"
# Swift's crash backtracer would run for every finding (seconds each, and a hang under -minimize_crash):
# libFuzzer's own handler reports the stack.
export SWIFT_BACKTRACE=enable=no

# Every directory Tests/Fuzz/Sources/Fuzz<Name> whose name is a Swift identifier (letters, digits, `_`:
# FuzzMP4Duration, FuzzID3v2 are targets as much as FuzzJSON).
all_targets() { (cd Tests/Fuzz/Sources && ls -d Fuzz* 2>/dev/null) | grep -E '^Fuzz[A-Za-z0-9_]+$' | sort; }

build() {
  # SwiftPM passes `--sanitize` values to the compiler as separate `-sanitize=` flags, in an order
  # that varies from build to build, and the frontend got only the last one: half the builds had no coverage instrumentation
  # (libFuzzer ran blind) and the other half no AddressSanitizer. The combined flag, added last,
  # always wins; `--sanitize` stays so that SwiftPM links libFuzzer's `main`.
  # The manifest lists Sources/ at evaluation time; SwiftPM's manifest cache is keyed by the manifest's
  # text, so a cached evaluation would miss a target directory added since (`--manifest-cache none`).
  # Its cached build plan is not redone when a source file is added to a module of the Castor package
  # this one depends on by path (a new file in Modules/CastJSON went uncompiled and its users failed), so
  # the plan is removed first: SwiftPM plans again, and compiles only what changed.
  rm -f "$scratch/$configuration.yaml" "$scratch/$configuration/description.json"
  local log; log=$(mktemp)
  if ! swift build --package-path Tests/Fuzz --scratch-path "$scratch" -c "$configuration" --manifest-cache none \
      --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address >"$log" 2>&1; then
    grep -vE "^\[|^Building|^Compiling|prohibited flag" "$log" || true
    rm -f "$log"; echo "fuzz: build failed"; exit 1
  fi
  grep -E "error|warning: .*Fuzz" "$log" | grep -v "prohibited flag" || true
  rm -f "$log"
}

binary() {
  local bin="$scratch/$configuration/$1"
  [ -x "$bin" ] || { echo "fuzz: $1 was not built (is Tests/Fuzz/Sources/$1 a target?)" >&2; exit 1; }
  echo "$bin"
}

# The read-only corpus directories of a target that exist: the committed corpus, then the seeds.
inputs() {
  local t="$1"
  for d in "$root/Tests/Fuzz/Corpus/$t" "$root/Tests/Fuzz/Seeds/$t"; do [ -d "$d" ] && echo "$d"; done
  return 0
}

common_args() {
  echo "-rss_limit_mb=$rss_mb -malloc_limit_mb=$rss_mb -timeout=$timeout_s -max_len=$max_len -print_final_stats=1"
}

# A target's libFuzzer dictionary (tokens of its input language), when Tests/Fuzz/Dictionaries/<target>.dict exists.
dict_arg() {
  [ -f "Tests/Fuzz/Dictionaries/$1.dict" ] && echo "-dict=$root/Tests/Fuzz/Dictionaries/$1.dict"
  return 0
}

# `cov: N ft: M corp: F/SIZE` of a target over its committed corpus (and seeds), from a run that executes nothing else.
corpus_coverage() {
  local t="$1" bin; bin=$(binary "$t")
  local dirs; dirs=$(inputs "$t")
  [ -n "$dirs" ] || { echo "cov: 0 ft: 0 corp: 0/0b"; return; }
  local out
  # shellcheck disable=SC2086
  out=$("$bin" -runs=0 $(common_args) $dirs 2>&1 || true)
  # The INITED line, not a `pulse` line that libFuzzer may print while it is still loading the corpus.
  grep -m1 -E "INITED cov:" <<<"$out" | grep -oE "cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*" || echo "cov: ? ft: ? corp: ?"
}

archive_of() { echo "$root/Tests/Fuzz/Archive/$1.tar.xz"; }

# Unpacks a target's archive (its full corpus) into fuzz/corpus-<target>, beside what local runs put there.
unpack_archive() {
  local t="$1" archive; archive=$(archive_of "$t")
  mkdir -p "fuzz/corpus-$t"
  [ -f "$archive" ] || return 0
  tar -xJf "$archive" -C "fuzz/corpus-$t"
}

# Writes a directory's files as a target's archive, byte for byte the same for the same files (sorted names,
# no dates or owners), so that an unchanged corpus leaves git nothing to commit.
pack_archive() {
  local t="$1" dir="$2" archive; archive=$(archive_of "$t")
  mkdir -p "$(dirname "$archive")"
  (cd "$dir" && find . -maxdepth 1 -type f -printf '%f\n' | LC_ALL=C sort) >"fuzz/$t.files"
  tar --create --file=- --directory="$dir" --no-recursion \
      --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a+r,u+w,go-w --format=gnu --files-from="fuzz/$t.files" \
    | xz -6 --threads=1 >"$archive.tmp"
  mv "$archive.tmp" "$archive"
  rm -f "fuzz/$t.files"
}

# `-merge=1 ARGS... OUT IN...` into a fresh OUT (a `-set_cover_merge=1` among ARGS takes the place of -merge=1);
# a failure (an input that crashes) keeps the old corpus.
merge_into() {
  local t="$1" out="$2" log="$3"; shift 3
  local bin; bin=$(binary "$t")
  rm -rf "$out"; mkdir -p "$out"
  # shellcheck disable=SC2086
  if ! "$bin" -merge=1 $(common_args) "$@" >"$log" 2>&1; then
    echo "fuzz: merging $t failed (an input of the corpus crashes?) — see $log"; tail -20 "$log"
    rm -rf "$out"; return 1
  fi
}

# The target's full corpus (archive, in-tree corpus, local inputs, seeds) merged keeping every feature, written
# back as its archive; then the in-tree corpus re-minimized from it to few inputs that keep every edge
# (-set_cover_merge=1 -use_counters=0: an edge is a feature whatever its hit count, and a set cover of them is
# about half the size of -merge=1's greedy set), which is what `run` (CI) starts from. A second pass, -merge=1,
# adds inputs for edges the first missed: some harnesses keep state from one input to the next (a decoder's
# recent strings, a status memory), so an input's edges depend on what ran before it (a single pass left up to
# 6 of FuzzQueueItemsBytes' 3 258 edges out).
merge_target() {
  local t="$1"
  local committed="Tests/Fuzz/Corpus/$t" full="fuzz/full-$t" small="fuzz/small-$t"
  mkdir -p "$committed"
  unpack_archive "$t"
  merge_into "$t" "$full" "fuzz/$t.merge.log" "$full" "$committed" "fuzz/corpus-$t" \
    $( [ -d "Tests/Fuzz/Seeds/$t" ] && echo "Tests/Fuzz/Seeds/$t" ) || return 1
  merge_into "$t" "$small" "fuzz/$t.minimize.log" -set_cover_merge=1 -use_counters=0 "$small" "$full" || { rm -rf "$full"; return 1; }
  # shellcheck disable=SC2086
  "$(binary "$t")" -merge=1 -use_counters=0 $(common_args) "$small" "$full" >>"fuzz/$t.minimize.log" 2>&1 \
    || { echo "fuzz: minimizing $t failed — see fuzz/$t.minimize.log"; rm -rf "$full" "$small"; return 1; }
  pack_archive "$t" "$full"
  rm -rf "$committed"; mv "$small" "$committed"; rm -rf "$full"
}

minimize_finding() {
  local t="$1" file="$2" bin; bin=$(binary "$t")
  local out; out="$(dirname "$file")/minimized-$(basename "$file")"
  # shellcheck disable=SC2086
  "$bin" -minimize_crash=1 -runs=10000 -max_total_time=120 -exact_artifact_path="$out" $(common_args) "$file" >"$file.minimize.log" 2>&1 || true
  if [ -s "$out" ]; then echo "$out ($(stat -c %s "$out") bytes, from $(stat -c %s "$file"))"; else echo "$file (not minimized: see $file.minimize.log)"; fi
}

# Every finding of a target: crash-, leak-, timeout-, oom- and slow-unit- artifacts not yet minimized.
findings() {
  local dir="fuzz/crashes/$1"
  [ -d "$dir" ] || return 0
  find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | sort
}

# The findings of a target that are not in the list $2.
new_findings() {
  comm -13 <(echo "$2" | sed '/^$/d' | sort) <(findings "$1" | sort)
}

# One target for `seconds` from its corpus; prints one result line (and the log's tail on failure).
run_one() {
  local t="$1" seconds="$2"
  local bin; bin=$(binary "$t")
  local corpus="fuzz/corpus-$t" crashes="fuzz/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  local args; args="$(common_args) $(dict_arg "$t") -artifact_prefix=$crashes/"
  [ "$seconds" -gt 0 ] && args+=" -max_total_time=$seconds"
  # shellcheck disable=SC2086,SC2046
  if ! "$bin" $args "$corpus" $(inputs "$t") >"fuzz/$t.log" 2>&1; then
    echo "fuzz: $t FAILED — see fuzz/$t.log and $crashes"; tail -30 "fuzz/$t.log"; return 1
  elif ! grep -q "INITED cov:" "fuzz/$t.log"; then
    echo "fuzz: $t FAILED — libFuzzer saw no coverage counters: the binary was built without -sanitize=fuzzer instrumentation"
    return 1
  fi
  local runs; runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "fuzz/$t.log" | grep -o '[0-9]*$')
  local cov; cov=$(grep -oE "cov: [0-9]+ ft: [0-9]+ corp: [0-9]+" "fuzz/$t.log" | tail -1)
  echo "fuzz: $t ok ($runs runs, $cov, no finding)"
}

# Every target (or those named) for `seconds` each, FUZZ_JOBS of them at a time (one per core by default: each
# libFuzzer run is one thread, and a run's length is its time, so two at once halve the wall time of make test's).
run_short() {
  local seconds="$1"; shift
  local targets="${*:-$(all_targets)}" status=0 running=0 parallel=$jobs
  [ "$seconds" -gt 0 ] || parallel=1
  mkdir -p fuzz
  echo "fuzz: running $(echo "$targets" | wc -w) target(s) for ${seconds}s each, $parallel at a time"
  for t in $targets; do
    run_one "$t" "$seconds" >"fuzz/$t.result" 2>&1 &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then
      wait -n || status=1
      running=$((running - 1))
    fi
  done
  while [ "$running" -gt 0 ]; do
    wait -n || status=1
    running=$((running - 1))
  done
  for t in $targets; do cat "fuzz/$t.result"; rm -f "fuzz/$t.result"; done
  return $status
}

campaign() {
  local hours="$1"; shift
  local specs="${*:-$(all_targets)}"
  local total_weight=0 t w
  for spec in $specs; do w="${spec#*=}"; [ "$w" = "$spec" ] && w=1; total_weight=$((total_weight + w)); done
  local budget; budget=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
  local commit; commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Modules Tests/Fuzz/Sources || echo "+changes")
  local started; started=$(date -u +%Y-%m-%dT%H:%MZ)
  local summary="fuzz/campaign-$(date -u +%Y%m%d-%H%M).tsv"
  mkdir -p fuzz
  printf "target\tseconds\texecutions\texec/s\tcoverage (edges)\tfeatures\tcorpus files\tcorpus bytes\tpeak RSS MB\tfindings\n" >"$summary"
  echo "fuzz: campaign of ${hours}h over $(echo "$specs" | wc -w) targets, $jobs jobs, commit $commit, from $started"
  local status=0
  for spec in $specs; do
    t="${spec%%=*}"; w="${spec#*=}"; [ "$w" = "$spec" ] && w=1
    local seconds=$(( budget * w / total_weight ))
    [ "$seconds" -ge 1 ] || seconds=1
    local bin; bin=$(binary "$t")
    local corpus="$root/fuzz/corpus-$t" crashes="$root/fuzz/crashes/$t" work="$root/fuzz/campaign-$t"
    mkdir -p "$corpus" "$crashes"; rm -rf "$work"; mkdir -p "$work"
    unpack_archive "$t"  # the full corpus of earlier campaigns, not only the minimized one in the tree
    local known; known=$(findings "$t")
    local args; args="$(common_args) $(dict_arg "$t") -artifact_prefix=$crashes/ -jobs=$jobs -workers=$jobs"
    echo "fuzz: $t for ${seconds}s"
    local start; start=$(date +%s)
    local deadline=$(( start + seconds )) round=0 runs=0 found=0
    # A job stops at its first finding; while time is left and fewer than FUZZ_MAX_FINDINGS were found, another
    # round of jobs starts from the corpus so far. With -jobs, each job logs to fuzz-N.log in its working directory.
    while :; do
      local left=$(( deadline - $(date +%s) ))
      [ "$left" -ge 10 ] || break
      local round_args="$args -max_total_time=$left"
      if [ -n "${FUZZ_RUNS:-}" ]; then
        [ "$runs" -lt "$FUZZ_RUNS" ] || break
        round_args+=" -runs=$(( (FUZZ_RUNS - runs + jobs - 1) / jobs ))"
      fi
      round=$((round + 1)); mkdir -p "$work/round-$round"
      # shellcheck disable=SC2086,SC2046
      (cd "$work/round-$round" && "$bin" $round_args "$corpus" $(inputs "$t") >main.log 2>&1) || true
      runs=$(cat "$work"/round-*/fuzz-*.log 2>/dev/null | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$' | awk '{ s += $1 } END { print s + 0 }')
      local now_found; now_found=$(new_findings "$t" "$known" | wc -l)
      [ "$now_found" -gt "$found" ] || break  # the jobs ran their time (or their runs) without a finding
      found=$now_found
      [ "$found" -lt "${FUZZ_MAX_FINDINGS:-10}" ] || break
    done
    local elapsed=$(( $(date +%s) - start ))
    local rss; rss=$(cat "$work"/round-*/fuzz-*.log 2>/dev/null | grep -o 'stat::peak_rss_mb: *[0-9]*' | grep -o '[0-9]*$' | sort -n | tail -1)
    if ! grep -qs "INITED cov:" "$work"/round-1/fuzz-*.log; then
      echo "fuzz: $t FAILED — no job reported coverage counters (see $work)"; status=1
    fi
    merge_target "$t" || status=1
    local cov; cov=$(corpus_coverage "$t")
    local edges features files bytes
    edges=$(echo "$cov" | sed -n 's/.*cov: \([0-9?]*\).*/\1/p'); features=$(echo "$cov" | sed -n 's/.*ft: \([0-9?]*\).*/\1/p')
    files=$(find "Tests/Fuzz/Corpus/$t" -type f | wc -l); bytes=$(du -sb "Tests/Fuzz/Corpus/$t" | cut -f1)
    local archived; archived=$(tar -tJf "$(archive_of "$t")" | grep -c -v '/$' || true)
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$t" "$elapsed" "$runs" "$(( runs / (elapsed > 0 ? elapsed : 1) ))" \
      "$edges" "$features" "$files" "$bytes" "${rss:-?}" "$found" >>"$summary"
    echo "fuzz: $t: $runs executions in ${elapsed}s, coverage $edges edges / $features features, corpus $files files ($bytes bytes; $archived in its archive), peak RSS ${rss:-?} MB, $found finding(s)"
    if [ "$found" -gt 0 ]; then
      status=1
      for f in $(new_findings "$t" "$known"); do echo "fuzz:   finding $(minimize_finding "$t" "$f")"; done
    fi
  done
  echo
  echo "fuzz: campaign from $started, commit $commit, $jobs jobs (summary in $summary)"
  column -t -s $'\t' "$summary"
  return $status
}

command="${1:-}"; shift || true
case "$command" in
  build) build ;;
  list) all_targets ;;
  run) seconds="${1:-10}"; shift || true; [ -n "${FUZZ_NO_BUILD:-}" ] || build; run_short "$seconds" "$@" ;;
  campaign) [ -n "${1:-}" ] || { echo "usage: scripts/fuzz.sh campaign HOURS [TARGET[=WEIGHT]...]"; exit 2; }
    hours="$1"; shift; build; campaign "$hours" "$@" ;;
  merge) build; mkdir -p fuzz; for t in ${*:-$(all_targets)}; do merge_target "$t"; echo "fuzz: $t $(corpus_coverage "$t")"; done ;;
  unpack) mkdir -p fuzz; for t in ${*:-$(all_targets)}; do unpack_archive "$t"; echo "fuzz: $t: fuzz/corpus-$t has $(find "fuzz/corpus-$t" -type f | wc -l) files"; done ;;
  minimize) [ $# -eq 2 ] || { echo "usage: scripts/fuzz.sh minimize TARGET FILE"; exit 2; }; build; minimize_finding "$1" "$2" ;;
  reproduce) [ $# -ge 2 ] || { echo "usage: scripts/fuzz.sh reproduce TARGET FILE..."; exit 2; }
    build; t="$1"; shift; "$(binary "$t")" -rss_limit_mb="$rss_mb" -timeout="$timeout_s" "$@" ;;
  *) sed -n '2,31p' "$0"; exit 2 ;;
esac
