#!/usr/bin/env bash
# Regenerates the seeds of the emulated receiver's codec-probe fuzz targets with ffmpeg: tiny media
# files (a frame or two of 16x16 video, a fraction of a second of sound), each preceded by the two
# bytes the targets read as the prefix length the fetcher saw (0x0800 = 2048 bytes, total size known),
# or three for FuzzMediaInspection (the prefix length, then the response's flags). Files longer than
# 4 KiB are cut there: the headers the probes read come first.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tone=(-f lavfi -i "sine=frequency=440:duration=0.05:sample_rate=8000")
video=(-f lavfi -i "testsrc2=duration=0.1:size=16x16:rate=10")
x264=(-c:v libx264 -preset ultrafast)
x265=(-c:v libx265 -preset ultrafast -x265-params log-level=error)
seed() { # target file header-bytes
  mkdir -p "$1"
  { printf "$3"; head -c 4096 "$tmp/$2"; } > "$1/$2"
}
make() { # target file ffmpeg-arguments…
  local target=$1 file=$2; shift 2
  ffmpeg -v error -nostdin -y "$@" "$tmp/$file" 2>/dev/null
  seed "$target" "$file" '\x08\x00'
}
make FuzzMP4Codecs h264-aac.mp4 "${video[@]}" "${tone[@]}" "${x264[@]}" -c:a aac -movflags +faststart
make FuzzMP4Codecs hevc-ac3.mp4 "${video[@]}" "${tone[@]}" "${x265[@]}" -tag:v hvc1 -c:a ac3 -movflags +faststart
make FuzzMP4Codecs vp9-opus.mp4 "${video[@]}" "${tone[@]}" -c:v libvpx-vp9 -deadline realtime -c:a libopus -movflags +faststart
make FuzzMatroskaCodecs h264-ac3.mkv "${video[@]}" "${tone[@]}" "${x264[@]}" -c:a ac3
make FuzzMatroskaCodecs vp9.webm "${video[@]}" "${tone[@]}" -c:v libvpx-vp9 -deadline realtime -c:a libopus
make FuzzMPEGTSCodecs h264-aac.ts "${video[@]}" "${tone[@]}" "${x264[@]}" -c:a aac -f mpegts
make FuzzMPEGTSCodecs hevc-ac3.ts "${video[@]}" "${tone[@]}" "${x265[@]}" -c:a ac3 -f mpegts
make FuzzAudioFileCodecs clip.flac "${tone[@]}" -c:a flac
make FuzzAudioFileCodecs clip.wav "${tone[@]}" -c:a pcm_s16le
make FuzzAudioFileCodecs clip.opus "${tone[@]}" -c:a libopus
make FuzzAudioFileCodecs clip.aac "${tone[@]}" -c:a aac -b:a 16k
make FuzzAudioFileCodecs clip.mp3 "${tone[@]}" -c:a libmp3lame -q:a 9
mkdir -p FuzzHLSCodecs FuzzDASHCodecs FuzzParameterSets FuzzMediaInspection
printf '\x08\x00#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30\nhd.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="hvc1.2.4.L153.B0,ec-3",RESOLUTION=3840x2160\nuhd.m3u8\n' > FuzzHLSCodecs/master.m3u8
printf '\x08\x00#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2.0,\nseg0.m4s\n' > FuzzHLSCodecs/media.m3u8
printf '\x08\x00<?xml version="1.0"?><MPD type="static"><Period><AdaptationSet mimeType="video/mp4" codecs="avc1.4d401f"><Representation id="v" width="1280" height="720" frameRate="30000/1001"/></AdaptationSet><AdaptationSet mimeType="audio/mp4"><Representation id="a" codecs="mp4a.40.5" audioSamplingRate="48000"/></AdaptationSet></Period></MPD>' > FuzzDASHCodecs/static.mpd
# Parameter sets: the first NAL units of a raw H.264 and HEVC stream (SPS first), and an AudioSpecificConfig.
ffmpeg -v error -nostdin -y "${video[@]}" "${x264[@]}" -f h264 "$tmp/raw.h264" 2>/dev/null
ffmpeg -v error -nostdin -y "${video[@]}" "${x265[@]}" -f hevc "$tmp/raw.hevc" 2>/dev/null
python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
def units(path):
    data = open(path, 'rb').read(4096)
    parts = data.split(b'\x00\x00\x01')
    return [q for q in (p.rstrip(b'\x00') for p in parts) if q]
h264 = next(u for u in units(tmp + '/raw.h264') if u[0] & 0x1F == 7)
hevc = next(u for u in units(tmp + '/raw.hevc') if (u[0] >> 1) & 0x3F == 33)
open('FuzzParameterSets/h264-sps.bin', 'wb').write(h264)
open('FuzzParameterSets/hevc-sps.bin', 'wb').write(hevc)
open('FuzzParameterSets/he-aac-asc.bin', 'wb').write(bytes([0x12, 0x10, 0x56, 0xE5, 0x98]))
PY
seed FuzzMediaInspection h264-aac.ts '\x08\x00\x06'
cp FuzzHLSCodecs/media.m3u8 "$tmp/media.m3u8"
{ printf '\x08\x00\x02'; tail -c +3 "$tmp/media.m3u8"; } > FuzzMediaInspection/media.m3u8
ls -l Fuzz*Codecs FuzzParameterSets FuzzMediaInspection
