/// Where the emulated device serves `/setup/eureka_info`, the HTTP endpoint Cast devices answer on
/// port 8008 (plain) and 8443 (TLS, self-signed) and that pychromecast and catt read.
///
/// The document matches the mDNS advertisement (name, model, id, capabilities; the group's
/// `multizone.groups` entry for a group). Failing to listen on a port is not fatal: the receiver
/// logs it and reports what it bound in ``EmulatedReceiver/eurekaPorts``.
public struct EmulatedReceiverEureka: Sendable, Hashable {
    /// The plain HTTP port (8008 on devices); 0 serves no plain HTTP.
    public var httpPort: Int
    /// The HTTPS port (8443 on devices); 0 serves no HTTPS.
    public var httpsPort: Int

    /// Creates eureka settings; the defaults are the ports real devices use.
    public init(httpPort: Int = 8008, httpsPort: Int = 8443) {
        self.httpPort = httpPort
        self.httpsPort = httpsPort
    }
}

/// The ports the receiver serves `/setup/eureka_info` on, once started.
public struct EmulatedReceiverEurekaPorts: Sendable, Hashable {
    /// The bound plain HTTP port, if any.
    public var http: Int?
    /// The bound HTTPS port, if any.
    public var https: Int?
    /// Why a configured port is not served (one line per port), if any.
    public var problems: [String]
}
