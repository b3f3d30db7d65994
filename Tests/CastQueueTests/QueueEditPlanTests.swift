import CastMediaTestSupport
import CastJSON
import CastMedia
import Testing

@testable import CastQueue
import CastTestSupport

@Suite("Declarative setItems plan")
struct QueueEditPlanTests {
    static func item(_ name: String) -> QueueItem {
        QueueItem(media: MediaInformation(contentId: "http://127.0.0.1/\(name).mp3", contentType: "audio/mpeg"))
    }

    @Test func unchangedQueueSendsNothing() throws {
        let plan = try QueueEditPlan(from: [1, 2, 3], to: [.existing(1), .existing(2), .existing(3)])
        #expect(plan.isEmpty)
        #expect(plan.messageCount == 0)
    }

    @Test func removalOnlyDoesNotReorder() throws {
        let plan = try QueueEditPlan(from: [1, 2, 3, 4], to: [.existing(1), .existing(3)])
        #expect(plan.removals == [2, 4])
        #expect(plan.reorder == nil)
        #expect(plan.insertions.isEmpty)
        #expect(plan.messageCount == 1)
    }

    @Test func reorderOnlyWhenTheOrderChanged() throws {
        let plan = try QueueEditPlan(from: [1, 2, 3], to: [.existing(3), .existing(1), .existing(2)])
        #expect(plan.removals.isEmpty)
        #expect(plan.reorder == [3, 1, 2])
        #expect(plan.messageCount == 1)
    }

    @Test func insertionRunsGoBeforeTheNextExistingItem() throws {
        let a = Self.item("a"), b = Self.item("b"), c = Self.item("c")
        let plan = try QueueEditPlan(from: [1, 2], to: [.new(a), .existing(1), .new(b), .new(c), .existing(2), .new(a)])
        #expect(plan.insertions == [
            .init(items: [a], before: 1), .init(items: [b, c], before: 2), .init(items: [a], before: nil),
        ])
        #expect(plan.messageCount == 3)
    }

    @Test func invalidDesiredQueues() {
        #expect(throws: CastMediaError.self) { try QueueEditPlan(from: [1, 2], to: [.existing(3)]) }
        #expect(throws: CastMediaError.self) { try QueueEditPlan(from: [1, 2], to: [.existing(1), .existing(1)]) }
    }

    @Test func emptyingAndFillingAQueue() throws {
        let emptied = try QueueEditPlan(from: [1, 2, 3], to: [])
        #expect(emptied.removals == [1, 2, 3] && emptied.reorder == nil && emptied.insertions.isEmpty)
        let filled = try QueueEditPlan(from: [], to: [.new(Self.item("x")), .new(Self.item("y"))])
        #expect(filled.insertions.count == 1 && filled.insertions[0].before == nil)
    }

    /// Random current and desired queues: applying the plan gives the desired order, with at most one
    /// removal, one reorder and one insertion per run of new items.
    @Test(arguments: [1, 2, 3, 42, 1234] as [UInt64])
    func randomPlansProduceTheDesiredQueue(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let current = Array(1...Int.random(in: 1...15, using: &random)).shuffled(using: &random)
            var desired: [QueueEntry] = current.filter { _ in Bool.random(using: &random) }.shuffled(using: &random).map { .existing($0) }
            var nextNew = 1000
            var expected: [Int] = []
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let position = Int.random(in: 0...desired.count, using: &random)
                desired.insert(.new(Self.item("n\(position)")), at: position)
            }
            for entry in desired {
                switch entry {
                case .existing(let id): expected.append(id)
                case .new: expected.append(-1)
                }
            }
            let plan = try QueueEditPlan(from: current, to: desired)
            var ids = (1000...).makeIterator()
            let result = plan.simulate(on: current, newIds: &ids)
            // New items get ids 1000, 1001... in insertion order; compare shapes and existing order.
            #expect(result.count == expected.count)
            #expect(result.filter { $0 < 1000 } == expected.filter { $0 >= 0 })
            #expect(zip(result, expected).allSatisfy { ($0 >= 1000) == ($1 < 0) })
            let runs = desired.split { if case .existing = $0 { true } else { false } }.count
            #expect(plan.insertions.count == runs)
            let keptInOrder = current.filter { id in desired.contains(.existing(id)) } == expected.filter { $0 >= 0 }
            #expect((plan.reorder == nil) == keptInOrder)
            nextNew += 1
        }
    }
}

@Suite("Repeat modes")
struct CastRepeatModeTests {
    @Test func mapping() {
        #expect(CastRepeatMode(.off) == .off)
        #expect(CastRepeatMode(.single) == .one)
        #expect(CastRepeatMode(.all) == .all)
        #expect(CastRepeatMode(.allAndShuffle) == .all)
        #expect(CastRepeatMode(RepeatMode(rawValue: "REPEAT_LATER")) == .off)
        #expect(CastRepeatMode.allCases.map(\.repeatMode) == [.off, .single, .all])
    }
}

@Suite("Queue item builder")
struct QueueItemBuilderTests {
    @Test func buildsAndCopies() throws {
        var builder = QueueItemBuilder(media: MediaInformation(contentId: "http://127.0.0.1/a.mp3", contentType: "audio/mpeg"))
        builder.autoplay = false
        builder.preloadTime = 15
        builder.startTime = 3
        builder.playbackDuration = 60
        builder.activeTrackIds = [1]
        builder.customData = ["k": "v"]
        let item = builder.build()
        #expect(item.itemId == nil)
        #expect(item.autoplay == false && item.preloadTime == 15 && item.startTime == 3 && item.playbackDuration == 60)
        #expect(item.activeTrackIds == [1] && item.customData == ["k": "v"])
        var received = item
        received.itemId = 9
        let copy = QueueItemBuilder(item: received).build()
        #expect(copy == item)
        let json = try JSONValue(encoding: item)
        #expect(json == ["media": ["contentId": "http://127.0.0.1/a.mp3", "contentType": "audio/mpeg", "streamType": "BUFFERED"],
                         "autoplay": false, "preloadTime": 15, "startTime": 3, "playbackDuration": 60,
                         "activeTrackIds": [1], "customData": ["k": "v"]])
    }
}
