import Testing

@testable import CastChannels

/// The queue that hands a plugin its calls (`PluginMailbox`): the order, the end, cancellation.
@Suite struct PluginMailboxTests {
    @Test func callsComeInOrderAcrossTheBatchedClearing() async {
        let mailbox = PluginMailbox<Int>()
        var taken: [Int] = []
        var next = 0
        // Uneven rounds of queueing and taking, so the taken calls are cleared in every way.
        for round in 0..<40 {
            for _ in 0..<(round * 7 % 23 + 1) {
                mailbox.yield(next)
                next += 1
            }
            for _ in 0..<(round * 5 % 19 + 1) {
                guard taken.count < next, let call = await mailbox.next() else { break }
                taken.append(call)
            }
        }
        mailbox.finish()
        while let call = await mailbox.next() { taken.append(call) }
        #expect(taken == Array(0..<next))
    }

    @Test func aWaitingTaskGetsTheCallAndTheEnd() async {
        let mailbox = PluginMailbox<String>()
        let taker = Task { () -> [String] in
            var calls: [String] = []
            while let call = await mailbox.next() { calls.append(call) }
            return calls
        }
        mailbox.yield("connect")
        mailbox.yield("message")
        mailbox.finish()
        mailbox.yield("after the end")
        #expect(await taker.value == ["connect", "message"])
    }

    @Test func cancellingTheTakingTaskEndsIt() async {
        let mailbox = PluginMailbox<Int>()
        let started = PluginMailbox<Bool>()
        let taker = Task { () -> Int? in
            started.yield(true)
            return await mailbox.next()
        }
        _ = await started.next()
        taker.cancel()
        #expect(await taker.value == nil)
        mailbox.yield(1)
        #expect(await mailbox.next() == nil, "a cancelled mailbox stays ended")
    }
}
