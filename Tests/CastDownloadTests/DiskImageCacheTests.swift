import Foundation
import Testing

@testable import CastDownload

/// Counts fetches and serves deterministic bytes.
final class FakeFetcher: Sendable {
    private let state = Mutex(0)
    let size: Int

    init(size: Int) { self.size = size }

    var count: Int { state.withLock { $0 } }

    var fetcher: CastImageFetcher {
        { [self] url in
            state.withLock { $0 += 1 }
            if url.host == "fail.example" { throw URLError(.badServerResponse) }
            return Data(repeating: UInt8(truncatingIfNeeded: url.lastPathComponent.hashValue), count: size)
        }
    }
}

import Synchronization

@Suite("Disk image cache")
struct DiskImageCacheTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("castor-image-cache-\(UUID().uuidString)", isDirectory: true)
    }

    @Test func fetchesOnceThenServesFromDisk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = FakeFetcher(size: 100)
        let cache = DiskImageCache(directory: directory, maxBytes: 1000, fetcher: fake.fetcher)
        let url = URL(string: "https://example.com/a.jpg")!
        let first = try await cache.imageData(for: url)
        let second = try await cache.imageData(for: url)
        #expect(first == second)
        #expect(first.count == 100)
        #expect(fake.count == 1)
        #expect(try await cache.contains(url))
        // A new cache on the same directory finds the file.
        let reopened = DiskImageCache(directory: directory, maxBytes: 1000, fetcher: fake.fetcher)
        #expect(try await reopened.imageData(for: url) == first)
        #expect(fake.count == 1)
        #expect(try await reopened.currentSize() == 100)
    }

    @Test func evictsLeastRecentlyUsed() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = FakeFetcher(size: 100)
        let cache = DiskImageCache(directory: directory, maxBytes: 300, fetcher: fake.fetcher)
        let urls = (0..<4).map { URL(string: "https://example.com/\($0).jpg")! }
        _ = try await cache.imageData(for: urls[0])
        _ = try await cache.imageData(for: urls[1])
        _ = try await cache.imageData(for: urls[2])
        _ = try await cache.imageData(for: urls[0])  // 0 becomes the most recent; 1 is now the oldest
        _ = try await cache.imageData(for: urls[3])
        #expect(try await cache.currentSize() == 300)
        #expect(try await cache.contains(urls[0]))
        #expect(try await !cache.contains(urls[1]))
        #expect(try await cache.contains(urls[2]))
        #expect(try await cache.contains(urls[3]))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 3)
    }

    @Test func oversizedImagesAreNotStored() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fake = FakeFetcher(size: 500)
        let cache = DiskImageCache(directory: directory, maxBytes: 300, fetcher: fake.fetcher)
        let url = URL(string: "https://example.com/huge.jpg")!
        #expect(try await cache.imageData(for: url).count == 500)
        #expect(try await !cache.contains(url))
        #expect(try await cache.currentSize() == 0)
    }

    @Test func fetchFailureIsTyped() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = DiskImageCache(directory: directory, maxBytes: 300, fetcher: FakeFetcher(size: 1).fetcher)
        do {
            _ = try await cache.imageData(for: URL(string: "https://fail.example/x.jpg")!)
            Issue.record("no error")
        } catch let error as CastImageCacheError {
            #expect(error.code == .fetchFailed)
            #expect(error.cause is URLError)
        }
    }

    @Test func defaultFetcherRefusesNonHTTP() async {
        do {
            _ = try await DiskImageCache.urlSessionFetcher(URL(fileURLWithPath: "/etc/passwd"))
            Issue.record("fetched a file URL")
        } catch let error as CastImageCacheError {
            #expect(error.code == .unsupportedURL)
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func keysAreStableAndDistinct() {
        let a = DiskImageCache.key(for: URL(string: "https://example.com/a.jpg")!)
        #expect(a == DiskImageCache.key(for: URL(string: "https://example.com/a.jpg")!))
        #expect(a != DiskImageCache.key(for: URL(string: "https://example.com/b.jpg")!))
        #expect(a.count == 32)
    }
}
