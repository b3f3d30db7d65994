import CastCore
import CastJSON
import CastTestSupport
import Testing

/// The light layer on its own: the in-memory pair every test and plugin author starts with, and the
/// message's JSON payload.
@Suite struct InMemoryTransportTests {
    static func message(_ type: String) -> CastMessage {
        CastMessage(sourceId: "sender-0", destinationId: "receiver-0", namespace: "urn:x-cast:com.example.test",
                    json: ["type": .string(type)])
    }

    @Test func whatOneEndSendsTheOtherReceivesInOrder() async throws {
        let (sender, device) = InMemoryCastTransport.pair()
        for type in ["A", "B", "C"] { try sender.send(Self.message(type)) }
        var received: [String] = []
        for try await message in device.inbound {
            received.append(message.json?["type"]?.stringValue ?? "?")
            if received.count == 3 { break }
        }
        #expect(received == ["A", "B", "C"])
        let first = Self.message("PING")
        #expect(first.reply(.string("{}")).destinationId == "sender-0")
        await sender.close()
    }

    @Test func closingOneEndEndsTheOthersInboundAndRefusesSends() async throws {
        let (sender, device) = InMemoryCastTransport.pair()
        await device.close()
        var count = 0
        do {
            for try await _ in sender.inbound { count += 1 }
        } catch {}
        #expect(count == 0)
        #expect(throws: CastTransportError.self) { try sender.send(Self.message("LATE")) }
    }

    @Test func aFailureReachesThePeerWithItsError() async throws {
        let (sender, device) = InMemoryCastTransport.pair()
        sender.fail(CastTransportError(code: .io, message: "pulled the cable"))
        await #expect(throws: (any Error).self) { for try await _ in device.inbound {} }
        #expect(sender.closeReason?.code == .io)
    }
}
