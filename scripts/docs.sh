#!/usr/bin/env bash
# Builds the DocC documentation of every library product and fails on any warning.
#   scripts/docs.sh          – archives in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive
# Every product is named: without --product the plugin would also document our dependencies (NIO,
# swift-protobuf…), whose warnings are not ours to fix. A warning from the compiler while the plugin
# builds, from symbol extraction, or from docc (an unresolved link, an undocumented parameter, an
# ambiguous symbol) fails the run and is listed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}

# The library products, from Package.swift (one per library target).
mapfile -t products < <(sed -n 's/^ *\.library(name: "\([A-Za-z]*\)".*/\1/p' Package.swift)
[ ${#products[@]} -gt 0 ] || { echo "docs: no library products found in Package.swift" >&2; exit 1; }
args=()
for product in "${products[@]}"; do args+=(--product "$product"); done

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$swift" package generate-documentation "${args[@]}" 2>&1 | tee "$log" || status=$?
warnings=$(grep -cE '(^|: )warning: ' "$log" || true)
echo "docs: ${#products[@]} modules (${products[*]}); $warnings warning(s)"
if [ "$status" -ne 0 ]; then
  echo "docs: generate-documentation failed (exit $status)" >&2
  exit "$status"
fi
if [ "$warnings" -ne 0 ]; then
  echo "docs: documentation must build without warnings:" >&2
  grep -E '(^|: )warning: ' -A1 "$log" >&2
  exit 1
fi
