import Testing
@testable import CastMediaServer

@Suite("SRT to WebVTT")
struct SubtitleConverterTests {
    @Test func convertsABasicFile() throws {
        let srt = "1\n00:00:01,000 --> 00:00:02,500\nHello\n\n2\n00:00:03,000 --> 00:00:04,000\nWorld\nSecond line\n"
        let result = try SubtitleConverter.webVTT(fromSRT: srt)
        #expect(result.webVTT == """
            WEBVTT

            00:00:01.000 --> 00:00:02.500
            Hello

            00:00:03.000 --> 00:00:04.000
            World
            Second line

            """)
        #expect(result.cueCount == 2)
        #expect(result.skippedCount == 0)
    }

    @Test func handlesBOMAndCRLFAndCR() throws {
        let body = "1\r\n00:00:01,000 --> 00:00:02,000\r\nA\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nB\r\n"
        let withBOM = [0xEF, 0xBB, 0xBF] + Array(body.utf8)
        let crlf = try SubtitleConverter.webVTT(fromSRT: withBOM)
        let cr = try SubtitleConverter.webVTT(fromSRT: body.replacing("\r\n", with: "\r"))
        let expected = "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nA\n\n00:00:03.000 --> 00:00:04.000\nB\n"
        #expect(crlf.webVTT == expected)
        #expect(cr.webVTT == expected)
        #expect(!crlf.webVTT.contains("\r"))
        #expect(!crlf.webVTT.unicodeScalars.contains("\u{FEFF}"))
    }

    @Test func decodesWindows1252WhenNotUTF8() throws {
        // "Café – ½" in Windows-1252: é = E9, en dash = 96, ½ = BD.
        let bytes = Array("1\n00:00:01,000 --> 00:00:02,000\nCaf".utf8) + [0xE9, 0x20, 0x96, 0x20, 0xBD, 0x0A]
        let result = try SubtitleConverter.webVTT(fromSRT: bytes)
        #expect(result.webVTT.contains("Café – ½"))
    }

    @Test func timingVariants() {
        #expect(SubtitleConverter.parseTime("00:00:01,000") == 1000)
        #expect(SubtitleConverter.parseTime("01:02:03.456") == 3_723_456)
        #expect(SubtitleConverter.parseTime("1:02:03,4") == 3_723_400)
        #expect(SubtitleConverter.parseTime("100:00:00,000") == 360_000_000)
        #expect(SubtitleConverter.parseTime("02:03,450") == 123_450)
        #expect(SubtitleConverter.parseTime("00:60:00,000") == nil)
        #expect(SubtitleConverter.parseTime("00:00:1,000") == nil)
        #expect(SubtitleConverter.parseTime("00:00:01,0000") == nil)
        #expect(SubtitleConverter.parseTime("aa:00:01,000") == nil)
        #expect(SubtitleConverter.timestamp(360_000_000 + 1) == "100:00:00.001")
        #expect(SubtitleConverter.parseTiming("00:00:01,000-->00:00:02,000")! == (1000, 2000))
        #expect(SubtitleConverter.parseTiming("00:00:01,000 -> 00:00:02,000") == nil)
        // Position suffixes of some SRT writers are dropped.
        #expect(SubtitleConverter.parseTiming("00:00:01,000 --> 00:00:02,000 X1:100 X2:200 Y1:10 Y2:20")! == (1000, 2000))
    }

    @Test func keepsBasicTagsAndStripsOthers() {
        #expect(SubtitleConverter.convertText("<i>italic</i> <B>bold</B> <u>under</u>") == "<i>italic</i> <b>bold</b> <u>under</u>")
        #expect(SubtitleConverter.convertText("<font color=\"#ff0000\">red</font> text") == "red text")
        #expect(SubtitleConverter.convertText("<FONT face='Arial' size=\"3\">x</FONT>") == "x")
        #expect(SubtitleConverter.convertText("{\\an8}Top line") == "Top line")
        #expect(SubtitleConverter.convertText("<span>x</span>") == "x")
    }

    @Test func escapesWhatWebVTTReserves() {
        #expect(SubtitleConverter.convertText("Tom & Jerry") == "Tom &amp; Jerry")
        #expect(SubtitleConverter.convertText("a &amp; b") == "a &amp; b")
        #expect(SubtitleConverter.convertText("1 < 2 > 0") == "1 &lt; 2 &gt; 0")
        #expect(SubtitleConverter.convertText("x --> y") == "x --&gt; y")
        #expect(SubtitleConverter.convertText("<3 you") == "&lt;3 you")
    }

    @Test func skipsMalformedCuesAndCountsThem() throws {
        let srt = """
            1
            00:00:01,000 --> 00:00:02,000
            Good one

            2
            00:00:05,000 --> 00:00:03,000
            Ends before it starts

            3
            00:00:0x,000 --> 00:00:07,000
            Broken timing

            just some stray text
            without timing

            4
            00:00:08,000 --> 00:00:09,000

            5
            00:00:10,000 --> 00:00:11,000
            Last good
            """
        let result = try SubtitleConverter.webVTT(fromSRT: srt)
        #expect(result.cueCount == 2)
        #expect(result.skippedCount == 4)
        #expect(result.webVTT == "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nGood one\n\n00:00:10.000 --> 00:00:11.000\nLast good\n")
    }

    @Test func cuesWithoutBlankLineBetweenThem() throws {
        let srt = "1\n00:00:01,000 --> 00:00:02,000\nFirst\n2\n00:00:03,000 --> 00:00:04,000\nSecond\n"
        let result = try SubtitleConverter.webVTT(fromSRT: srt)
        #expect(result.cueCount == 2)
        #expect(result.webVTT.contains("First\n\n00:00:03.000"))
    }

    @Test func numericTextLineIsKeptAsText() throws {
        let srt = "1\n00:00:01,000 --> 00:00:02,000\n42\n\n"
        let result = try SubtitleConverter.webVTT(fromSRT: srt)
        #expect(result.webVTT == "WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n42\n")
    }

    @Test func noCueIsAnError() {
        #expect { try SubtitleConverter.webVTT(fromSRT: "") } throws: { ($0 as? MediaServerError)?.code == .invalidSubtitles }
        #expect { try SubtitleConverter.webVTT(fromSRT: "hello\nworld\n") } throws: {
            ($0 as? MediaServerError)?.code == .invalidSubtitles && ($0 as? MediaServerError)?.message.contains("1 malformed") == true
        }
    }

    @Test func outputIsValidWebVTTShape() throws {
        let result = try SubtitleConverter.webVTT(fromSRT: "1\n00:00:01,000 --> 00:00:02,000\nA\n")
        #expect(MediaContentType.sniff(Array(result.webVTT.utf8)) == "text/vtt")
    }

    /// Found by FuzzSubtitles (issue 22), minimized: an hour count whose milliseconds overflow `Int` trapped the
    /// converter (a crash for any user's subtitle file). Such a timing is malformed and its cue skipped.
    @Test func hoursBeyondIntAreMalformed() throws {
        #expect { try SubtitleConverter.webVTT(fromSRT: "1:00-->99999999999999:00:00") } throws: {
            ($0 as? MediaServerError)?.code == .invalidSubtitles
        }
        #expect(SubtitleConverter.parseTime("2562047788015:12:55.807") == Int.max)
        #expect(SubtitleConverter.parseTime("2562047788015:12:55.808") == nil)
        let result = try SubtitleConverter.webVTT(fromSRT: "1\n99999999999999:00:00,000 --> 99999999999999:00:01,000\nx\n\n2\n100:00:00,000 --> 100:00:01,000\ny\n")
        #expect(result.cueCount == 1)
        #expect(result.skippedCount == 1)
        #expect(result.webVTT == "WEBVTT\n\n100:00:00.000 --> 100:00:01.000\ny\n")
    }

    /// Found by the FuzzSubtitles campaign of 2026-11-26 (minimized inputs, each a whole SRT file): the
    /// converter's output, converted again, must not change (the media server may be handed its own
    /// output). An override block that formed only once a tag or an inner block was removed survived the
    /// first conversion and went in the second; and a combining mark after `&lt;` made `&lt;` one
    /// Character longer, so the second conversion escaped its `&`.
    @Test(arguments: [
        "9:00-->9:00\n{{\\}\\}", "9:00-->9:00\n{<f>\\}", "9:00-->9:00\n{<t>\\}", "5:00-->9:00\n{<c>\\}",
        "0:00-->0:00\n<\u{06EA}", "1:00-->2:00\n{<font color=\"red\">\\an8}Top", "1:00-->2:00\n{{{\\}\\}\\}x{\\}",
        "1:00-->2:00\nA &lt;\u{0301} &amp\u{0301}; <i>\u{0301}b</i>",
    ])
    func convertingTheOutputAgainChangesNothing(_ srt: String) throws {
        // A cue that survives both conversions: a cue left empty by the first is dropped, not an error.
        let first = try SubtitleConverter.webVTT(fromSRT: Array((srt + "\n\n10:00-->11:00\nkept").utf8))
        let again = try SubtitleConverter.webVTT(fromSRT: Array(first.webVTT.utf8))
        #expect(again.webVTT == first.webVTT)
        #expect(again.cueCount == first.cueCount)
    }

    @Test func overrideBlocksThatFormOnlyOnceTagsAreGoneAreRemovedToo() {
        #expect(SubtitleConverter.convertText("{<font color=\"red\">\\an8}Top") == "Top")
        #expect(SubtitleConverter.convertText("{{\\}\\}") == "")
        #expect(SubtitleConverter.convertText("a{\\b") == "a{\\b")  // never closed: kept, as before
        #expect(SubtitleConverter.convertText("<\u{06EA}") == "&lt;\u{06EA}")
        #expect(SubtitleConverter.convertText("&lt;\u{06EA}") == "&lt;\u{06EA}")
    }
}
