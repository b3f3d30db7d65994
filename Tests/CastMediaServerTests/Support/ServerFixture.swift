import CastMediaServer

/// Starts a server on 127.0.0.1 with an ephemeral port for one test and shuts it down afterwards.
func withServer<T>(
    idleTimeout: Duration = .seconds(300), clock: any Clock<Duration> = ContinuousClock(), maximumHeaderBytes: Int = 16 * 1024,
    _ body: (MediaServer) async throws -> T
) async throws -> T {
    let server = try await MediaServer.start(
        .init(host: "127.0.0.1", port: 0, idleTimeout: idleTimeout, clock: clock, maximumHeaderBytes: maximumHeaderBytes))
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

let curlMissing = "curl is not installed (apt-get install curl)"
