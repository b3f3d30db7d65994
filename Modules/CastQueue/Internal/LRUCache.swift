/// A least-recently-used cache with a fixed capacity (a value type: keep it under a lock).
struct LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let capacity: Int
    private var values: [Key: (value: Value, stamp: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { values.count }
    var keys: Dictionary<Key, (value: Value, stamp: UInt64)>.Keys { values.keys }

    /// The value, marking it used.
    mutating func value(for key: Key) -> Value? {
        guard let entry = values[key] else { return nil }
        clock += 1
        values[key] = (entry.value, clock)
        return entry.value
    }

    /// The value without marking it used.
    func peek(_ key: Key) -> Value? { values[key]?.value }

    /// Stores a value, evicting the least recently used one when full.
    mutating func insert(_ value: Value, for key: Key) {
        clock += 1
        values[key] = (value, clock)
        if values.count > capacity, let oldest = values.min(by: { $0.value.stamp < $1.value.stamp })?.key {
            values[oldest] = nil
        }
    }

    mutating func remove(_ key: Key) { values[key] = nil }

    mutating func removeAll() { values.removeAll() }

    /// Keeps only keys that satisfy `keep`.
    mutating func filter(_ keep: (Key) -> Bool) {
        values = values.filter { keep($0.key) }
    }
}
