/// Suspends until `condition` holds; throws ``WaitTimeoutError`` once `timeout` has passed without it.
///
/// Event-driven: the condition is checked at once, then each time ``ChangeSignal/shared`` is bumped (a
/// ``ManualClock`` changed, a ``ScriptedCastPeer`` got or sent a message, a harness recorded
/// something) and each time an `Observable` property it read changes, never in a polling loop. The
/// timeout only turns a hang into a failure; no test passes or fails on how fast something happens.
///
/// The error names `what` was awaited and where the wait was written, so a test that lets it
/// propagate fails with both:
///
/// ```swift
/// try await waitUntil("the heartbeat armed") { clock.sleeperCount == 1 }
/// ```
///
/// - Parameters:
///   - what: What the wait is for, in the words of the failure message.
///   - timeout: How long to wait at most (30 s by default), against a hang.
///   - fileID: The file of the call (filled in by the compiler).
///   - line: The line of the call (filled in by the compiler).
///   - condition: Read on the waiting task; must not block.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(30), fileID: String = #fileID, line: Int = #line,
    _ condition: () -> Bool
) async throws(WaitTimeoutError) {
    if await ChangeSignal.shared.wait(for: condition, until: .now + timeout) { return }
    throw WaitTimeoutError(what: what, timeout: timeout, fileID: fileID, line: line)
}

/// A ``waitUntil(_:timeout:fileID:line:_:)`` whose condition did not hold before its timeout.
public struct WaitTimeoutError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the wait was for.
    public var what: String
    /// How long it waited.
    public var timeout: Duration
    /// The file of the wait.
    public var fileID: String
    /// The line of the wait.
    public var line: Int

    /// Describes a wait that timed out.
    public init(what: String, timeout: Duration, fileID: String, line: Int) {
        self.what = what
        self.timeout = timeout
        self.fileID = fileID
        self.line = line
    }

    /// "Timed out after 30 seconds waiting until …", with the place of the wait.
    public var description: String { "Timed out after \(timeout) waiting until \(what) (\(fileID):\(line))" }
}
