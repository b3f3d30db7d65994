#!/usr/bin/env bash
# Regenerates Modules/CastTLS/Generated/*.pb.swift from Modules/CastTLS/Proto/*.proto.
# Needs protoc (apt: protobuf-compiler) and protoc-gen-swift 1.39 (built from apple/swift-protobuf:
#   swift build -c release --product protoc-gen-swift  in a checkout of tag 1.39.0).
# Set PROTOC_GEN_SWIFT to its path when it is not on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
plugin="${PROTOC_GEN_SWIFT:-$(command -v protoc-gen-swift)}"
out=Modules/CastTLS/Generated
mkdir -p "$out"
protoc --plugin=protoc-gen-swift="$plugin" \
  --swift_opt=Visibility=Package --swift_opt=UseAccessLevelOnImports=true --swift_opt=FileNaming=DropPath \
  --swift_out="$out" -I Modules/CastTLS/Proto \
  Modules/CastTLS/Proto/cast_channel.proto Modules/CastTLS/Proto/revocation.proto
echo "generated: $(ls "$out")"
