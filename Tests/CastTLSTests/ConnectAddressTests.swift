import CastTestSupport
import NIOCore
import NIOPosix
import Testing

@testable import CastTLS

/// `TLSCastTransport.connect` connects to an address as it is, and sends a name through NIO's resolver.
/// Both paths end in the same transport, and a refused connection reads as refused on both.
@Suite("Connecting by address and by name")
struct ConnectAddressTests {
    @Test("IPv4 and IPv6 addresses are connected to as they are; names and zoned addresses go to the resolver")
    func literalAddresses() throws {
        #expect(TLSCastTransport.literalAddress("192.168.1.20", port: 8009) == (try SocketAddress(ipAddress: "192.168.1.20", port: 8009)))
        #expect(TLSCastTransport.literalAddress("127.0.0.1", port: 1)?.port == 1)
        #expect(TLSCastTransport.literalAddress("::1", port: 8009) == (try SocketAddress(ipAddress: "::1", port: 8009)))
        #expect(TLSCastTransport.literalAddress("2001:db8::17", port: 8009)?.protocol == .inet6)
        // A zone (link-local IPv6 from discovery) needs getaddrinfo, which reads it.
        #expect(TLSCastTransport.literalAddress("fe80::1%eth0", port: 8009) == nil)
        #expect(TLSCastTransport.literalAddress("fe80::1%2", port: 8009) == nil)
        // Names, also those made only of hex digits, and forms inet_pton does not take.
        for name in ["localhost", "chromecast.local", "cafe", "beef", "1.2.3", "", "[::1]", "192.168.1.300"] {
            #expect(TLSCastTransport.literalAddress(name, port: 8009) == nil, "\(name)")
        }
    }

    @Test(
        "an OpenSSL device is reached by its address and by a name that resolves to it",
        .enabled(if: OpenSSLPeer.isAvailable, OpenSSLPeer.skipReason))
    func bothPathsReachTheDevice() async throws {
        for host in ["127.0.0.1", "localhost"] {
            let peer = try await OpenSSLPeer.withTestCertificate(.server, version: "1.3", tickets: 0)
            async let connecting = TLSCastTransport.connect(
                host: host, port: peer.port, configuration: .init(connectTimeout: .seconds(60)))
            try await peer.run("accept")
            _ = try await peer.run("handshake")
            let transport = try await connecting
            try transport.send(CastMessage(
                sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.example.path",
                payload: .string(#"{"host":"\#(host)"}"#)))
            #expect(try await peer.run("readcast") == ["CAST", "urn:x-cast:com.example.path", #"{"host":"\#(host)"}"#], "\(host)")
            await transport.close()
        }
    }

    @Test("a refused connection is refused by address and by name, each on its own path")
    func refusalOnBothPaths() async throws {
        let refusing = try RefusingPort()
        for host in ["127.0.0.1", "localhost"] {
            do {
                let transport = try await TLSCastTransport.connect(
                    host: host, port: refusing.port, configuration: .init(connectTimeout: .seconds(60)))
                Issue.record("\(host): connected to a port that refuses")
                await transport.close()
            } catch {
                #expect(error.code == .connectFailed, "\(host): \(error)")
                #expect(error.isConnectionRefused, "\(host): \(error)")
                // The cause tells the paths apart: a socket error from connecting to the address itself,
                // Happy Eyeballs' summary of its attempts for a name.
                if host == "localhost" {
                    #expect(error.cause is NIOConnectionError, "\(host): \(String(describing: error.cause))")
                } else {
                    #expect(error.cause is IOError, "\(host): \(String(describing: error.cause))")
                }
            }
        }
        withExtendedLifetime(refusing) {}
    }
}
