import Foundation
import Testing
@testable import CastConversion

/// The tools conversion runs (child processes themselves are CastProcess's, tested there) and how many run at once.
@Suite("ffmpeg's tools")
struct FFmpegToolsTests {
    @Test("ffmpeg missing: one line naming the Debian package")
    func missingTools() {
        #expect(throws: ConversionError.self) { try FFmpegTools.locate(searchPath: "/nonexistent") }
        do {
            _ = try FFmpegTools.locate(searchPath: "/nonexistent")
        } catch {
            #expect(error.code == .toolMissing)
            #expect(error.message == "ffmpeg is not installed: apt-get install ffmpeg (Debian package ffmpeg)")
        }
    }
}

@Suite("The ffmpeg limiter")
struct ConversionLimiterTests {
    @Test("At most `capacity` runs hold a slot; the next waits for a release, in order; a cancelled wait takes none")
    func limits() async throws {
        let limiter = ConversionLimiter(capacity: 1)
        #expect(await limiter.acquire())
        let second = Task { await limiter.acquire() }
        let cancelled = Task { await limiter.acquire() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        #expect(await limiter.running == 1)
        await limiter.release()
        #expect(await second.value)
        #expect(await limiter.running == 1)
        await limiter.release()
        #expect(await limiter.running == 0)
    }
}
