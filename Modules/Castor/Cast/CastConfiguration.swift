public import CastChannels
public import CastDiscoveryCore
public import CastCore
import Foundation

/// How previous and next behave.
public enum CastNavigationMode: Sendable, Hashable {
    /// Previous always goes to the previous item.
    case immediate
    /// Previous goes back to the start of the current item, unless within the first `interval`
    /// of an on-demand item, when it goes to the previous item.
    case smart(interval: Duration)
}

/// A skip direction.
public enum CastSkip: Sendable, Hashable, CaseIterable {
    /// Skip backward.
    case backward
    /// Skip forward.
    case forward
}

/// How a dropped connection is retried: exponential back-off with jitter, on the injected clock.
public struct CastReconnectPolicy: Sendable, Hashable {
    /// Attempts before giving up and ending the session; 0 disables reconnecting.
    public var maxAttempts: Int
    /// The delay before the first attempt.
    public var initialDelay: Duration
    /// The largest delay between attempts.
    public var maxDelay: Duration
    /// The factor the delay grows by after each attempt.
    public var multiplier: Double
    /// The fraction of each delay that is random (0: none; 0.5: the delay is between 50 % and 100 % of its nominal value).
    public var jitter: Double
    /// How long after the loss reconnecting may go on, on the injected clock, whatever the attempts
    /// left (`nil`: only ``maxAttempts`` bounds it). No attempt starts after it.
    public var timeout: Duration?

    /// Creates a policy. Defaults: 6 attempts, 0.5 s doubling to at most 15 s, 50 % jitter, no time bound.
    public init(maxAttempts: Int = 6, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(15),
                multiplier: Double = 2, jitter: Double = 0.5, timeout: Duration? = nil) {
        self.timeout = timeout.map { max(.zero, $0) }
        self.maxAttempts = max(0, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.maxDelay = max(self.initialDelay, maxDelay)
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
    }

    /// No reconnecting: a dropped connection ends the session.
    public static let never = CastReconnectPolicy(maxAttempts: 0)

    /// Reconnects for at most `timeout` after the loss, with as many attempts as fit, backing off
    /// from 0.5 s to at most `maxDelay` with 50 % jitter (what long-running programs use).
    public static func within(_ timeout: Duration, maxDelay: Duration = .seconds(8)) -> CastReconnectPolicy {
        CastReconnectPolicy(maxAttempts: Int(Int32.max), maxDelay: maxDelay, timeout: timeout)
    }

    /// The delay before attempt `attempt` (1-based), given a random number in 0..<1.
    public func delay(beforeAttempt attempt: Int, random: Double) -> Duration {
        let exponent = Double(max(0, attempt - 1))
        let nominal = min(Self.seconds(maxDelay), Self.seconds(initialDelay) * pow(multiplier, exponent))
        let factor = 1 - jitter * min(max(random, 0), 1)
        return .nanoseconds(Int64(nominal * factor * 1_000_000_000))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Everything a ``Cast`` needs to know: the receiver app, discovery, timers and behaviour defaults.
///
/// On iOS this is split between `GCKCastOptions` and Castor's `CastConfiguration`; on Linux nothing
/// else initialises the stack, so it is all here.
public struct CastConfiguration: Sendable {
    /// The receiver App ID; `CastAppID.defaultMediaReceiver` (`CC1AD845`) by default. Use your own
    /// receiver's id as soon as you have one.
    public var receiverAppID: String
    /// Launch with supported app types `WEB` and `ANDROID_TV`, so Android TV receivers run their native app.
    public var isAndroidReceiverCompatible: Bool
    /// Where devices come from: mDNS, known hosts, DIAL (informational; the `DeviceBrowser` given to ``Cast`` does the work).
    public var discoverySources: Set<DiscoverySource>
    /// The deadline of each command sent to the receiver.
    public var requestTimeout: Duration
    /// The deadline of a LAUNCH.
    public var launchTimeout: Duration
    /// How often to PING the receiver.
    public var heartbeatInterval: Duration
    /// How long the receiver may stay silent before the connection counts as lost.
    public var livenessTimeout: Duration
    /// How a lost connection is retried.
    public var reconnectPolicy: CastReconnectPolicy
    /// Whether ending a session also stops the receiver app (otherwise the sender only disconnects
    /// and the receiver keeps playing).
    public var stopsReceiverAppOnEnd: Bool
    /// How previous and next behave (smart, 3 s, by default).
    public var navigationMode: CastNavigationMode
    /// The forward skip interval (10 s by default; must be positive).
    public var forwardSkipInterval: Duration
    /// The backward skip interval (10 s by default; must be positive).
    public var backwardSkipInterval: Duration
    /// The sender id used on the wire.
    public var senderId: String
    /// The `userAgent` sent in CONNECT.
    public var userAgent = "Castor for Linux"
    /// Whether each connection checks that the device is genuine, and what to do with the result
    /// (`.report` by default: expose it and go on; `.require` refuses an unverified device).
    public var deviceAuthPolicy: CastDeviceAuthPolicy = .report
    /// The roots a genuine device must chain to (the public Cast roots by default).
    public var deviceAuthTrustStore: CastTrustStore = .cast

    /// Creates a configuration; every parameter has the recommended default. Skip intervals that
    /// are not positive are replaced with 10 s.
    public init(
        receiverAppID: String = CastAppID.defaultMediaReceiver,
        isAndroidReceiverCompatible: Bool = false,
        discoverySources: Set<DiscoverySource> = [.mdns, .knownHost],
        requestTimeout: Duration = .seconds(10),
        launchTimeout: Duration = .seconds(30),
        heartbeatInterval: Duration = .seconds(5),
        livenessTimeout: Duration = .seconds(10),
        reconnectPolicy: CastReconnectPolicy = CastReconnectPolicy(),
        stopsReceiverAppOnEnd: Bool = true,
        navigationMode: CastNavigationMode = .smart(interval: .seconds(3)),
        forwardSkipInterval: Duration = .seconds(10),
        backwardSkipInterval: Duration = .seconds(10),
        senderId: String = "sender-0"
    ) {
        self.receiverAppID = receiverAppID
        self.isAndroidReceiverCompatible = isAndroidReceiverCompatible
        self.discoverySources = discoverySources
        self.requestTimeout = requestTimeout
        self.launchTimeout = launchTimeout
        self.heartbeatInterval = heartbeatInterval
        self.livenessTimeout = livenessTimeout
        self.reconnectPolicy = reconnectPolicy
        self.stopsReceiverAppOnEnd = stopsReceiverAppOnEnd
        self.navigationMode = navigationMode
        self.forwardSkipInterval = forwardSkipInterval > .zero ? forwardSkipInterval : .seconds(10)
        self.backwardSkipInterval = backwardSkipInterval > .zero ? backwardSkipInterval : .seconds(10)
        self.senderId = senderId
    }

    /// The interval of a skip in `direction`.
    public func interval(forSkip direction: CastSkip) -> Duration {
        direction == .forward ? forwardSkipInterval : backwardSkipInterval
    }

    /// The supported app types sent with LAUNCH (`["WEB", "ANDROID_TV"]` in Android TV compatibility mode, else none).
    public var supportedAppTypes: [String]? { isAndroidReceiverCompatible ? ["WEB", "ANDROID_TV"] : nil }

    var connectionConfiguration: CastConnectionConfiguration {
        CastConnectionConfiguration(
            senderId: senderId, userAgent: userAgent, heartbeatInterval: heartbeatInterval, livenessTimeout: livenessTimeout,
            requestTimeout: requestTimeout, launchTimeout: launchTimeout, deviceAuthPolicy: deviceAuthPolicy,
            deviceAuthTrustStore: deviceAuthTrustStore)
    }
}
