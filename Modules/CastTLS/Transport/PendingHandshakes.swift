import Synchronization

/// The accepted connections of a server whose TLS handshake has not finished: the ones to close when
/// the server runs short of file descriptors, so that a sender is admitted instead of waiting behind
/// connections that never speak.
///
/// A connection that finished its handshake is never in here, so it is never closed to make room.
/// Nor is one the server has not read yet: a sender's ClientHello follows its TCP handshake at once, but
/// the server reads it only after setting the connection up, and a flood of accepts must not close a
/// sender in between. A connection becomes a candidate once its event loop has had a turn to read it
/// (``ready(_:)``) and ``grace`` has passed since it was accepted. Among the candidates, the one closed
/// first is chosen in this order:
/// 1. one that has sent nothing yet (an idle TCP connection) before one that has (a sender in the
///    middle of its handshake: its ClientHello came);
/// 2. then one from the peer address holding the most pending connections (a host that opens many
///    pays first, not the one sender beside it);
/// 3. then the oldest.
///
/// Shared by the listening channel's event loop (which evicts) and the connections' loops (which
/// register, note their first bytes and leave): every method is safe from any thread.
package final class PendingHandshakes: Sendable {
    /// One pending connection, as the registry knows it.
    package struct Entry: Sendable {
        /// The order of admission (the oldest has the smallest).
        package var sequence: UInt64
        /// When it was accepted, on the registry's clock.
        package var accepted: Duration
        /// The peer's address without its port.
        package var host: String
        /// Whether any bytes came from it.
        package var heardFrom: Bool
        /// Whether its event loop has had a turn to read it since it was set up.
        package var ready = false
    }

    private struct State {
        var entries: [UInt64: (entry: Entry, evict: @Sendable () -> Void)] = [:]
        /// The token of each pending connection's channel (set at accept, before the channel is set up).
        var tokens: [ObjectIdentifier: UInt64] = [:]
        /// Connections evicted and not yet gone, so that their setup reports why they closed.
        var evictedTokens: Set<UInt64> = []
        var pendingPerHost: [String: Int] = [:]
        var nextSequence: UInt64 = 1
        /// Evicted connections whose close has not completed: their descriptors come back soon.
        var closing = 0
        var evicted = 0
    }
    private let state = Mutex(State())
    /// The time on the server's clock.
    private let now: @Sendable () -> Duration

    /// How long a newly accepted connection is safe from eviction at least (besides being ``ready(_:)``).
    package static let grace = Duration.milliseconds(50)

    /// How long to wait before asking again when no pending connection is ready yet.
    package static let readyCheck = Duration.milliseconds(2)

    /// - Parameter now: the time on the server's clock (elapsed time; a test's manual clock).
    package init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    /// What ``evictOne()`` did.
    package enum Eviction: Sendable, Equatable {
        /// A connection is being closed.
        case evicted
        /// No pending connection is a candidate yet (within its grace, or not read yet): ask again after `delay`.
        case wait(Duration)
        /// No connection is pending.
        case none
    }

    /// A connection was accepted from `host`; `evict` closes it (on its own event loop). Returns its
    /// token for ``heard(_:)`` and ``left(_:)``.
    @discardableResult
    package func admitted(host: String, channel: ObjectIdentifier? = nil, evict: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            let sequence = state.nextSequence
            state.nextSequence += 1
            state.entries[sequence] = (Entry(sequence: sequence, accepted: now(), host: host, heardFrom: false), evict)
            state.pendingPerHost[host, default: 0] += 1
            if let channel { state.tokens[channel] = sequence }
            return sequence
        }
    }

    /// The token ``admitted(host:channel:evict:)`` gave the connection on `channel`.
    package func token(for channel: ObjectIdentifier) -> UInt64? {
        state.withLock { $0.tokens[channel] }
    }

    /// Whether the connection of `token` was evicted (its setup then reports that as its end).
    package func wasEvicted(_ token: UInt64) -> Bool {
        state.withLock { $0.evictedTokens.contains(token) }
    }

    /// The connection on `channel` closed: it is no longer a candidate.
    package func closed(_ channel: ObjectIdentifier) {
        state.withLock { state in
            guard let token = state.tokens.removeValue(forKey: channel) else { return }
            Self.remove(token, from: &state)
        }
    }

    /// The connection sent its first bytes.
    package func heard(_ token: UInt64) {
        state.withLock { $0.entries[token]?.entry.heardFrom = true }
    }

    /// The connection's event loop has had a turn to read what it sent with its TCP handshake.
    package func ready(_ token: UInt64) {
        state.withLock { $0.entries[token]?.entry.ready = true }
    }

    /// The connection's handshake settled (finished or failed): it is no longer a candidate, and
    /// whether it was evicted is forgotten (ask ``wasEvicted(_:)`` before).
    package func left(_ token: UInt64) {
        state.withLock { state in
            Self.remove(token, from: &state)
            state.evictedTokens.remove(token)
        }
    }

    /// An evicted connection's close completed: its descriptor is free again.
    package func evictionClosed() {
        state.withLock { $0.closing = max(0, $0.closing - 1) }
    }

    /// How many connections wait for their handshake.
    package var count: Int { state.withLock { $0.entries.count } }

    /// Evicted connections whose descriptors are not yet free.
    package var closing: Int { state.withLock { $0.closing } }

    /// How many connections were evicted in all.
    package var evicted: Int { state.withLock { $0.evicted } }

    /// The connection ``evictOne()`` would choose now.
    package var candidate: Entry? {
        let now = now()
        return state.withLock { Self.choose(in: $0, now: now).entry }
    }

    /// Closes the pending connection least likely to be a sender about to finish (see the type's order).
    @discardableResult
    package func evictOne() -> Eviction {
        let now = now()
        let (evict, outcome) = state.withLock { state -> ((@Sendable () -> Void)?, Eviction) in
            let (chosen, youngest) = Self.choose(in: state, now: now)
            guard let chosen else {
                return (nil, youngest.map { .wait(max(Self.readyCheck, $0 + Self.grace - now)) } ?? .none)
            }
            let evict = state.entries[chosen.sequence]?.evict
            Self.remove(chosen.sequence, from: &state)
            state.evictedTokens.insert(chosen.sequence)
            state.closing += 1
            state.evicted += 1
            return (evict, .evicted)
        }
        evict?()
        return outcome
    }

    /// The entry to evict at `now` (the order of the type's documentation, among the candidates), and,
    /// when there is none, when the earliest of the others was accepted.
    private static func choose(in state: State, now: Duration) -> (entry: Entry?, earliestYoung: Duration?) {
        // A linear scan: only under descriptor pressure, over at most as many entries as descriptors.
        var best: Entry?
        var bestKey: (Int, Int, UInt64) = (0, 0, 0)
        var earliestYoung: Duration?
        for (entry, _) in state.entries.values {
            guard entry.ready, now - entry.accepted >= grace else {
                earliestYoung = min(earliestYoung ?? entry.accepted, entry.accepted)
                continue
            }
            let key = (entry.heardFrom ? 1 : 0, -(state.pendingPerHost[entry.host] ?? 0), entry.sequence)
            if best == nil || key < bestKey {
                best = entry
                bestKey = key
            }
        }
        return (best, best == nil ? earliestYoung : nil)
    }

    private static func remove(_ token: UInt64, from state: inout State) {
        guard let (entry, _) = state.entries.removeValue(forKey: token) else { return }
        let left = (state.pendingPerHost[entry.host] ?? 1) - 1
        state.pendingPerHost[entry.host] = left > 0 ? left : nil
    }
}
