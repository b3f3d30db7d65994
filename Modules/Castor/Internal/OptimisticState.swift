/// Castor's optimistic write, as a pure state machine (one per receiver property).
///
/// - A write shows at once and sends one request.
/// - While a request is in flight, statuses from the receiver are recorded but not shown.
/// - Further writes keep only the latest as `pending`; it is sent when the request completes.
/// - A failure drops the pending value and shows the receiver's value again (rollback).
struct OptimisticState<Value: Sendable & Equatable>: Sendable {
    /// The receiver's latest value.
    private(set) var receiverValue: Value
    /// The value of the request in flight.
    private(set) var inFlight: Value?
    /// The latest value written while a request was in flight.
    private(set) var pending: Value?

    init(_ receiverValue: Value) {
        self.receiverValue = receiverValue
    }

    /// The value to show.
    var value: Value { pending ?? inFlight ?? receiverValue }

    /// Whether a request is in flight.
    var isBusy: Bool { inFlight != nil }

    /// A write. Returns the value to send now, or `nil` when it waits behind the request in flight.
    mutating func write(_ newValue: Value) -> Value? {
        if inFlight != nil {
            pending = newValue
            return nil
        }
        inFlight = newValue
        return newValue
    }

    /// A status from the receiver.
    mutating func receive(_ value: Value) {
        receiverValue = value
    }

    /// The request in flight completed. On success, `reported` is the receiver's value from the reply,
    /// when it carried one. Returns the pending value to send next, if any.
    mutating func complete(success: Bool, reported: Value?) -> Value? {
        if let reported { receiverValue = reported }
        inFlight = nil
        guard success, let next = pending else {
            pending = nil
            return nil
        }
        pending = nil
        inFlight = next
        return next
    }

    /// Forgets requests (the session ended or the connection was replaced).
    mutating func reset(to value: Value) {
        receiverValue = value
        inFlight = nil
        pending = nil
    }
}
