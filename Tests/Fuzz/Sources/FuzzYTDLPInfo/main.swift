import CastConversion
import CastDeviceProfiles

/// Reads arbitrary bytes as yt-dlp's report (`yt-dlp -J`) and, when they are one, asks the format picker about it for
/// a few device profiles, with and without a format of the user's: the parser either gives a typed error
/// (`malformedReport`, `tooLarge`) or a value within its caps, and the picker either a typed error
/// (`noPlayableStream`) or formats of the report that ffmpeg can read, with request headers that cannot split a line.
/// The harness lives here and uses CastConversion's public API only.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYTDLPInfoEntry(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let info: YTDLPInfo
    do {
        info = try YTDLPInfo(json: bytes)
    } catch {
        guard error.code == .malformedReport || error.code == .tooLarge else { fatalError("unexpected error \(error)") }
        return 0
    }
    check(info, nested: false)
    return 0
}

/// The profiles asked: H.264-only with a screen, one decoding HEVC and VP9 in 4K, and one without a screen.
let profiles: [CastDeviceProfile] = [.chromecast3, .ultra, .audioOnly]

func check(_ info: YTDLPInfo, nested: Bool) {
    guard info.formats.count <= YTDLPInfo.maximumFormats, info.selected.count <= 4,
          info.entries.count <= YTDLPInfo.maximumEntries, info.subtitles.count <= YTDLPInfo.maximumSubtitleLanguages * 16
    else { fatalError("a cap was passed: \(info.formats.count) formats, \(info.entries.count) entries, \(info.subtitles.count) subtitles") }
    if nested, !info.entries.isEmpty { fatalError("a playlist inside a playlist was kept") }
    if info.kind == .video, !info.entries.isEmpty { fatalError("a video with entries") }
    for format in info.formats + info.selected {
        checkURL(format.url)
        if let manifest = format.manifestURL { checkURL(manifest) }
        guard format.httpHeaders.count <= YTDLPInfo.maximumHeaders else { fatalError("\(format.httpHeaders.count) headers kept") }
        if let input = YTDLPFormatChoice.input(for: format) { checkOptions(input.inputOptions) }
    }
    for subtitle in info.subtitles { checkURL(subtitle.url) }
    let known = Set(info.formats + info.selected)
    for profile in profiles {
        for userFormat in [false, true] {
            let choice: YTDLPFormatChoice
            do {
                choice = try YTDLPFormatChoice.choose(for: info, profile: profile, userFormat: userFormat)
            } catch {
                guard error.code == .noPlayableStream else { fatalError("the picker threw \(error)") }
                continue
            }
            switch choice {
            case .single(let format):
                guard known.contains(format) else { fatalError("a format not in the report was chosen") }
            case .converted(let format):
                guard known.contains(format), YTDLPFormatChoice.input(for: format) != nil, !userFormat else {
                    fatalError("a format to convert that is not the report's, or unreadable, or the user's: \(format)")
                }
            case .separate(let video, let audio):
                guard known.contains(video), known.contains(audio) else { fatalError("a pair not in the report was chosen") }
                guard YTDLPFormatChoice.input(for: video) != nil, YTDLPFormatChoice.input(for: audio) != nil else {
                    fatalError("a pair ffmpeg cannot read was chosen: \(video.transport ?? "-") \(audio.transport ?? "-")")
                }
                if !userFormat {
                    guard profile.hasVideoOutput, video.hasVideo == true, video.hasAudio == false, audio.hasVideo == false, audio.hasAudio == true
                    else { fatalError("the pair \(video) + \(audio) is not video-only + audio-only") }
                }
            }
        }
    }
    for entry in info.entries { check(entry, nested: true) }
}

func checkURL(_ url: String) {
    let lower = url.prefix(8).lowercased()
    guard url.utf8.count <= YTDLPInfo.maximumURLLength, lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
        fatalError("a URL was kept that is too long or not http(s): \(url.prefix(40))")
    }
}

/// ffmpeg's input options: values with no line break but the `-headers` block's own CR LF ends, within the cap.
func checkOptions(_ options: [String]) {
    for (index, option) in options.enumerated() where index % 2 == 1 {
        if options[index - 1] == "-headers" {
            guard option.utf8.count <= MediaInput.maximumHeaderBytes, option.hasSuffix("\r\n") else { fatalError("a headers block over its cap") }
            for line in option.components(separatedBy: "\r\n").dropLast() {
                guard !line.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 }), line.contains(": ") else {
                    fatalError("a header line that splits: \(line.debugDescription)")
                }
            }
        } else if option.utf8.contains(where: { $0 < 0x20 }) {
            fatalError("an option value with a line break: \(option.debugDescription)")
        }
    }
}
