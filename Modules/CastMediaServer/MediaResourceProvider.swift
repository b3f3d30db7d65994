/// Makes resources when a receiver asks for them: the extension point for media that does not exist
/// as a file when it is registered (an HLS playlist whose segments a converter makes on demand, subtitles
/// extracted from a container, cover art cut from a file).
///
/// A provider is registered under one token with ``MediaServer/register(provider:name:contentType:)``
/// and answers for every name below it: `/<token>/master.m3u8`, `/<token>/segment-12.ts`… Names are single
/// path segments, percent-decoded and checked by the server (no `/`, `..` or control characters) before the
/// provider sees them. What it returns is served like a registered file or data: byte ranges, conditional
/// requests, HEAD and CORS all work, so the provider only says *what* the resource is.
///
/// ```swift
/// struct Greeting: MediaResourceProvider {
///     func resource(named name: String) async throws(MediaServerError) -> ProvidedResource? {
///         name == "hello.txt" ? .bytes(Array("hello\n".utf8), contentType: "text/plain") : nil
///     }
/// }
/// let registration = try server.register(provider: Greeting(), name: "hello.txt", contentType: "text/plain")
/// ```
///
/// The server calls ``resource(named:)`` once per request, off its event loops, and cancels the call's task
/// when the client disconnects first; a provider that waits for something (a segment being made) should
/// honour cancellation and bound its own wait.
public protocol MediaResourceProvider: Sendable {
    /// The resource called `name` under the registration's token.
    ///
    /// - Returns: the resource, or `nil` when there is none by that name (the client gets 404).
    /// - Throws: ``MediaServerError``: ``MediaServerError/Code/fileNotFound`` gives 404; any other code
    ///   (``MediaServerError/Code/resourceUnavailable`` for a conversion that failed or ran out of time) gives
    ///   503 with `Retry-After`.
    func resource(named name: String) async throws(MediaServerError) -> ProvidedResource?
}

/// What a ``MediaResourceProvider`` gives for one request: a file to send, or bytes held in memory.
public struct ProvidedResource: Sendable {
    enum Content: Sendable {
        case file(path: String)
        case bytes([UInt8], entityTag: String)
    }

    let content: Content
    /// The content type sent.
    public let contentType: String
    /// When the content last changed (seconds since the epoch), for `Last-Modified`; `nil` omits it.
    public let lastModified: Int64?

    private init(content: Content, contentType: String, lastModified: Int64?) {
        self.content = content
        self.contentType = contentType
        self.lastModified = lastModified
    }

    /// A file, opened for this request (with `sendfile`, ranges and validators from its `fstat`).
    ///
    /// The file must stay in place until the response has started; a file that is gone when it is opened
    /// gives 404.
    public static func file(atPath path: String, contentType: String) -> ProvidedResource {
        ProvidedResource(content: .file(path: path), contentType: contentType, lastModified: nil)
    }

    /// Bytes in memory; the entity tag is derived from them, so equal bytes give equal tags.
    public static func bytes(_ bytes: [UInt8], contentType: String, lastModified: Int64? = nil) -> ProvidedResource {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let tag = "\"p-\(String(hash, radix: 16))-\(String(bytes.count, radix: 16))\""
        return ProvidedResource(content: .bytes(bytes, entityTag: tag), contentType: contentType, lastModified: lastModified)
    }
}

extension MediaServer {
    /// Publishes a provider: every `/<token>/<name>` below one fresh token is answered by it.
    ///
    /// - Parameters:
    ///   - provider: makes the resources.
    ///   - name: the entry resource's name (an HLS master playlist, say); the registration's ``MediaRegistration/url``
    ///     points at it, and ``MediaRegistration/url(ofResourceNamed:)`` at its siblings.
    ///   - contentType: the entry resource's content type, as the registration reports it.
    /// - Throws: ``MediaServerError/Code/serverClosed`` after ``shutdown()``.
    public func register(provider: some MediaResourceProvider, name: String, contentType: String) throws(MediaServerError)
        -> MediaRegistration {
        try ensureOpen()
        let registration = makeRegistration(name: Self.sanitizedName(name), contentType: contentType)
        registry.add(.init(registration: registration, source: .provider(provider)))
        return registration
    }
}

extension MediaRegistration {
    /// The URL of another resource under this registration's token (for a provider's siblings of the entry
    /// resource, such as a subtitle track next to a playlist). Only providers answer for names other than ``name``.
    public func url(ofResourceNamed other: String) -> String {
        let base = url.dropLast(RequestTarget.percentEncode(name).utf8.count)
        return base + RequestTarget.percentEncode(MediaServer.sanitizedName(other))
    }
}
