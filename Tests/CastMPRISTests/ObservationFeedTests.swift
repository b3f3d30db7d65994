@testable import CastMPRIS
import Observation
import Synchronization
import Testing

/// An observable value changed the way the façade changes its properties: stored first, then
/// the registrar notified.
private final class Box: Observable, Sendable {
    private let registrar = ObservationRegistrar()
    private let stored: Mutex<Int>

    init(_ value: Int) { stored = Mutex(value) }

    var value: Int {
        registrar.access(self, keyPath: \.value)
        return stored.withLock { $0 }
    }

    func set(_ value: Int) {
        stored.withLock { $0 = value }
        registrar.withMutation(of: self, keyPath: \.value) {}
    }
}

/// The follower of the façade misses no change, in particular none made between a reading and the
/// installation of its observers (where `Observations` alone leaves the stale value showing).
@Suite("Observation feed")
struct ObservationFeedTests {
    @Test("A change made after the reading, before the observers are installed, is delivered")
    func changeInTheGapIsDelivered() async {
        let box = Box(1)
        let readings = Mutex(0)
        let feed = ObservationFeed<Int>(read: {
            let value = box.value
            // The first reading: another thread changes the value after it was read, before
            // withObservationTracking installs the observer.
            if readings.withLock({ $0 += 1; return $0 }) == 1 { box.set(2) }
            return value
        }, settled: ==)
        var iterator = feed.values().makeAsyncIterator()
        // `Observations { box.value }` delivers 1 here and then nothing, as no later change notifies it.
        #expect(await iterator.next() == 2)
        box.set(3)
        #expect(await iterator.next() == 3)
    }

    @Test("When the gap changes which objects are read, the new ones are observed")
    func changeOfSourceInTheGapIsObserved() async {
        let first = Box(10), second = Box(20), selector = Box(0)
        let readings = Mutex(0)
        let feed = ObservationFeed<[Int]>(read: {
            let which = selector.value
            let value = which == 0 ? first.value : second.value
            if readings.withLock({ $0 += 1; return $0 }) == 1 { selector.set(1) }
            return [which, value]
        }, settled: ==)
        var iterator = feed.values().makeAsyncIterator()
        #expect(await iterator.next() == [1, 20])
        second.set(21)
        #expect(await iterator.next() == [1, 21])
    }

    @Test("Every change after the first reading is delivered, the newest value last")
    func laterChangesAreDelivered() async {
        let box = Box(0)
        let feed = ObservationFeed<Int>(read: { box.value }, settled: ==)
        var iterator = feed.values().makeAsyncIterator()
        #expect(await iterator.next() == 0)
        for value in 1...50 {
            box.set(value)
            #expect(await iterator.next() == value)
        }
    }

    @Test("Readings that keep changing under the feed end after maxRetracks with the newest")
    func boundedRetracking() {
        let box = Box(0)
        var feed = ObservationFeed<Int>(read: {
            let value = box.value
            box.set(value + 1)  // every reading changes what it read
            return value
        }, settled: ==)
        feed.maxRetracks = 3
        let reading = feed.settledReading(onChange: {})
        // One tracked reading, then 3 × (compare + track again), then the final reading.
        #expect(reading == 7)
        #expect(box.value == 8)
    }
}
