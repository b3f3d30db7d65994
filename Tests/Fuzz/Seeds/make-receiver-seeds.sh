#!/usr/bin/env bash
# Regenerates the seeds of the emulated receiver's duration-probe fuzz targets with ffmpeg:
# tiny media files (a fraction of a second), each preceded by the two bytes the targets read as the
# prefix length the fetcher saw (0x0400 = 1024 bytes, total size known).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tone=(-f lavfi -i "sine=frequency=440:duration=0.3:sample_rate=8000")
video=(-f lavfi -i "testsrc=duration=0.2:size=32x32:rate=10")
make() { # target file ffmpeg-arguments…
  local target=$1 file=$2; shift 2
  ffmpeg -v error -y "$@" "$tmp/$file"
  mkdir -p "$target"
  { printf '\x04\x00'; cat "$tmp/$file"; } > "$target/$file"
}
make FuzzMovieDuration late.mp4 "${video[@]}" -c:v mjpeg
make FuzzMovieDuration fast.mp4 "${video[@]}" -c:v mjpeg -movflags +faststart
make FuzzMatroskaDuration clip.webm "${tone[@]}" -c:a libopus
make FuzzMPEGAudioDuration vbr.mp3 "${tone[@]}" -c:a libmp3lame -q:a 9
make FuzzADTSDuration clip.aac "${tone[@]}" -c:a aac -b:a 16k
make FuzzFLACDuration clip.flac "${tone[@]}" -c:a flac
make FuzzOggDuration clip.ogg "${tone[@]}" -c:a libvorbis
make FuzzOggDuration clip.opus "${tone[@]}" -c:a libopus
make FuzzWAVDuration clip.wav "${tone[@]}" -c:a pcm_u8
mkdir -p FuzzHLSPlaylist FuzzDASHManifest FuzzEurekaInfo
printf '\x04\x00#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\na.ts\n#EXTINF:1.5,\nb.ts\n#EXT-X-ENDLIST\n' > FuzzHLSPlaylist/vod.m3u8
printf '\x04\x00#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow/index.m3u8\n' > FuzzHLSPlaylist/master.m3u8
printf '\x04\x00<?xml version="1.0"?><MPD type="static" mediaPresentationDuration="PT1M2.5S"><Period duration="PT30S"/></MPD>' > FuzzDASHManifest/static.mpd
printf '/setup/eureka_info?params=device_info,name' > FuzzEurekaInfo/device-info.txt
