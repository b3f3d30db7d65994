import CastctlKit
import Castor
import Foundation
import Testing

@Suite struct MediaURLResolverTests {
    struct Fixed: MediaURLResolver {
        let name: String
        let host: String
        func resolve(_ url: URL, in context: MediaURLContext) async throws(CastctlError) -> MediaURLResolution? {
            guard url.host == host else { return nil }
            guard context.format != "none" else { throw CastctlError(code: .invalidDevice, message: "\(name): no format") }
            return MediaURLResolution(assets: [.identifier("\(name):\(url.path)")])
        }
    }

    @Test func theFirstResolverThatClaimsTheURLWinsAndNoneMeansMedia() async throws {
        let resolvers: [any MediaURLResolver] = [Fixed(name: "a", host: "a.example"), Fixed(name: "b", host: "b.example"),
                                                 Fixed(name: "b2", host: "b.example")]
        let context = MediaURLContext(timeout: .seconds(5))
        let b = try await MediaURLResolvers.resolve(URL(string: "https://b.example/watch")!, with: resolvers, in: context)
        #expect(b?.assets == [.identifier("b:/watch")])
        #expect(try await MediaURLResolvers.resolve(URL(string: "https://c.example/x.mp4")!, with: resolvers, in: context) == nil)
        #expect(try await MediaURLResolvers.resolve(URL(string: "https://a.example/x")!, with: [], in: context) == nil)
        await #expect(throws: CastctlError.self) {
            try await MediaURLResolvers.resolve(URL(string: "https://a.example/x")!, with: resolvers,
                                                in: MediaURLContext(timeout: .seconds(5), format: "none"))
        }
    }
}
