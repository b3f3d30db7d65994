#!/usr/bin/env bash
# Installs what Castor's build, demo and tests need on a fresh Debian machine.
#   scripts/bootstrap.sh build   – C libraries for the build (GnuTLS, Avahi client, libxml2, libcurl, libdbus-1)
#   scripts/bootstrap.sh test    – the above, plus avahi-daemon, dbus, iptables, curl, openssl, protobuf
#                                  tools for the lab tests, the third-party senders the interop
#                                  tests drive (VLC, Debian's pychromecast 9.4, ffmpeg for clips, playerctl),
#                                  espeak-ng (castctl announce --say), man-db, dpkg-dev and lintian (the
#                                  install and .deb tests), Xvfb and PulseAudio (the screen and desktop-sound
#                                  mirroring tests), and a Python venv with pychromecast 14, catt, nichromecast
#                                  and Google's Cast Streaming sender (cast-sender).
set -euo pipefail
mode="${1:-build}"
cd "$(dirname "$0")/.."

packages=(libavahi-client-dev libgnutls28-dev libxml2-dev libcurl4-openssl-dev libdbus-1-dev nettle-dev libvpx-dev libopus-dev libopenh264-dev pkg-config)
if [ "$mode" = test ]; then
  packages+=(avahi-daemon avahi-utils dbus iptables iproute2 curl python3-venv openssl)
  packages+=(vlc-bin vlc-plugin-base ffmpeg python3-pychromecast playerctl)
  packages+=(espeak-ng man-db dpkg-dev lintian)
  packages+=(xvfb pulseaudio pulseaudio-utils)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$mode" = test ]; then
  if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import pychromecast, zeroconf, catt, nichromecast, cast_sender, yt_dlp' 2>/dev/null; then
    echo "bootstrap: creating .venv with pychromecast 14.x, catt, nichromecast, yt-dlp and Open Screen's cast-sender"
    python3 -m venv .venv
    # cast-sender: Google's Open Screen Cast Streaming sender (Python 3.11 bindings of cast/standalone_sender).
    # yt-dlp: castctl cast resolves web pages with it (catt depends on it too; named so its .venv/bin/yt-dlp is there).
    .venv/bin/pip install -q --disable-pip-version-check 'pychromecast>=14,<15' 'zeroconf' 'catt' 'nichromecast' 'cast-sender==1.2.0' 'yt-dlp'
  fi
fi
