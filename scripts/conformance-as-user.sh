#!/usr/bin/env bash
# Runs the TLS conformance suites against OpenSSL (issue 15) once more as an unprivileged user, so that
# nothing in them works only for root (socket options, ports, file permissions). Part of `make test`
# when it runs as root (as CI does); elsewhere the normal run already is a user's.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "conformance-as-user: already running as $(id -un); the main test run covered it"
  exit 0
fi
user=castor-interop   # the same unprivileged user the VLC interop test creates
id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
bin="$(swift build --show-bin-path)/CastorPackageTests.xctest"
# The user must be able to reach the test binary and the peers' scripts.
runuser -u "$user" -- test -x "$bin" -a -r Tests/Peers/openssl_peer.py || {
  echo "conformance-as-user: $user cannot read $bin or Tests/Peers (a parent folder closed to others?)" >&2; exit 1; }
echo "conformance-as-user: TLS conformance, OpenSSL device and OpenSSL sender suites as $user"
runuser -u "$user" -- env HOME=/tmp CASTOR_PYTHON="${CASTOR_PYTHON:-}" "$bin" --testing-library swift-testing \
  --filter 'TLSConformanceTests|OpenSSLDeviceTests|ReceiverOpenSSLSender'
