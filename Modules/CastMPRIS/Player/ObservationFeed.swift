import Observation

/// The values of a reading of observable objects, each time something it read changes, starting
/// with the current one; no change is ever left unseen.
///
/// `withObservationTracking` (and `Observations`, built on it) installs its observers only after
/// the reading has returned. A change made on another thread between the moment a property is
/// read and the moment its observer is installed notifies nobody, and the value read is already
/// stale: the follower would show it until something else changes. The façade changes on its
/// event loops while the follower reads on another thread, so that window is real.
///
/// The feed closes it: after each tracked reading it reads again, with the observers installed.
/// Whatever changed before they were installed is in the second reading; whatever changes after
/// notifies them. When the second reading differs from the first in what decides *which* objects
/// are read (`settled` says whether two readings agree), it tracks again until they agree.
struct ObservationFeed<Value: Sendable>: Sendable {
    /// Reads the observable objects.
    let read: @Sendable () -> Value
    /// Whether two readings saw the same objects in the same state (time-derived values, such as an
    /// extrapolated position, are left out).
    let settled: @Sendable (Value, Value) -> Bool
    /// The most times a reading is tracked again while the objects keep changing under it; after
    /// that the newest reading is delivered (the observers installed by then still report the next change).
    var maxRetracks = 8

    /// The readings, starting with the current one, then one after each change (changes that come
    /// close together may be delivered as one reading). Ends when the consumer stops iterating.
    func values() -> AsyncStream<Value> {
        let (values, output) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let (ticks, tick) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let feed = self
        let task = Task {
            tick.yield()
            for await _ in ticks {
                if Task.isCancelled { break }
                output.yield(feed.settledReading { tick.yield() })
            }
        }
        output.onTermination = { _ in
            task.cancel()
            tick.finish()
        }
        return values
    }

    /// One reading that agrees with a reading made after its observers were installed.
    /// `onChange` is called (once per installation, on the mutating thread) when something read changes.
    func settledReading(onChange: @escaping @Sendable () -> Void) -> Value {
        var tracked = withObservationTracking(read, onChange: onChange)
        for _ in 0..<maxRetracks {
            let again = read()
            if settled(tracked, again) { return again }
            tracked = withObservationTracking(read, onChange: onChange)
        }
        return read()
    }
}
