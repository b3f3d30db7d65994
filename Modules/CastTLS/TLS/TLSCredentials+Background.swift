import NIOPosix

extension TLSCredentials {
    /// ``selfSigned(commonName:validity:keyBits:)`` with its defaults, generated on NIO's blocking thread pool.
    ///
    /// Generating an RSA key is up to a second of CPU. Done on a Swift concurrency thread, it stalls every
    /// task that shares the cooperative pool (two threads on a two-core machine): heartbeats miss their
    /// deadline and requests time out while nothing is wrong with them. Receivers and servers that make their
    /// own certificate call this instead.
    /// - Throws: ``TLSError`` as ``selfSigned(commonName:validity:keyBits:)`` does, or
    ///   ``TLSError/Code/certificateGeneration`` when the thread pool is shut down.
    package static func selfSignedInBackground() async throws(TLSError) -> TLSCredentials {
        let result: Result<TLSCredentials, TLSError>
        do {
            result = try await NIOThreadPool.singleton.runIfActive {
                Result { () throws(TLSError) -> TLSCredentials in try TLSCredentials.selfSigned() }
            }
        } catch {
            throw TLSError(code: .certificateGeneration, message: "The thread pool that generates keys is not running: \(error)")
        }
        return try result.get()
    }
}
