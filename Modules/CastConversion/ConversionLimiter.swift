/// Caps how many ffmpeg processes run at once, across every conversion that shares it.
///
/// A run waits for a slot before it starts and gives it back when it ends; waiters are served in order.
public actor ConversionLimiter {
    /// The limiter conversions share unless given another: two runs at once.
    public static let shared = ConversionLimiter(capacity: 2)

    /// The most runs at once.
    public let capacity: Int
    private var inUse = 0
    private var waiting: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID = 0

    /// A limiter of `capacity` runs (at least one).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The runs holding a slot now.
    public var running: Int { inUse }

    /// Waits for a slot; `false` when the waiting task was cancelled (no slot is then held).
    func acquire() async -> Bool {
        if inUse < capacity, waiting.isEmpty {
            inUse += 1
            return true
        }
        let id = nextID
        nextID += 1
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiting.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    /// Gives a slot back.
    func release() {
        if !waiting.isEmpty {
            waiting.removeFirst().continuation.resume(returning: true)
        } else {
            inUse = max(0, inUse - 1)
        }
    }

    private func cancel(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(returning: false)
    }
}
