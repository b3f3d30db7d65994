import CastJSON
import CastTestSupport
import Foundation
import Testing

/// The fault lab's cases against a program built on the public `Cast` façade alone
/// (Tests/FaultLabDriver), so what the façade gives a user's program is checked without castctl's
/// code in between: every packet dropped, kill -9 and a restart at the same address, and a restart
/// at a new address found again by Cast id over mDNS. Same assertions as the castctl runs; figures
/// are printed as `fault-lab (façade):` lines, never asserted.
extension FaultLabTests {
    /// Starts the façade driver in host b.
    static func driver(_ lab: FaultLab, _ arguments: [String]) throws -> ChildProcess {
        let child = try ChildProcess(script, ["exec", lab.tag, "b", TestPaths.program("FaultLabDriver")] + arguments)
        lab.adopt(child)
        return child
    }

    @Test func theFacadeAloneRejoinsAfterADropAndResumesAfterAKill() async throws {
        try await FaultLab.run { lab in
            var receiver = try await lab.startReceiver()
            let driver = try Self.driver(lab, ["--host", Self.receiverAddress, "--port", "8009", "--reconnect-timeout", "120"])
            let loaded = await FaultLab.event(driver, "loaded")
            #expect(loaded != nil, "\(driver.output) \(driver.errorOutput)")

            // Every packet dropped both ways: the heartbeat notices; once the rules go, the session is rejoined.
            let dropped = ContinuousClock.now
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-A", chain, "-j", "DROP"]) }
            #expect(await FaultLab.event(driver, "connectionLost") != nil, "\(driver.output)")
            let detected = ContinuousClock.now
            #expect(await FaultLab.event(driver, "reconnecting", 2) != nil, "\(driver.output)")
            for chain in ["INPUT", "OUTPUT"] { try await lab.exec("a", ["iptables", "-D", chain, "-j", "DROP"]) }
            let undropped = ContinuousClock.now
            #expect(await FaultLab.event(driver, "rejoined") != nil, "\(driver.output) \(driver.errorOutput)")
            print("fault-lab (façade): DROP: loss detected after \(FaultLab.format(Self.seconds(detected - dropped))) s; rejoined "
                  + "\(FaultLab.format(Self.seconds(ContinuousClock.now - undropped))) s after the rules were removed")

            // kill -9, restart after 3 s at the same address: the movie is loaded again where it was.
            kill(receiver.pid, SIGKILL)
            _ = await receiver.waitForExit()
            #expect(await FaultLab.event(driver, "connectionLost", 2) != nil, "\(driver.output)")
            try await Task.sleep(for: .seconds(3))
            let restartedAt = ContinuousClock.now
            receiver = try await lab.startReceiver()
            let resumed = await FaultLab.event(driver, "resumed")
            #expect(resumed != nil, "\(driver.output) \(driver.errorOutput)")
            let position = resumed?["position"]?.doubleValue ?? -1
            #expect(position >= 10, "resumed at \(position), loaded at 10 s")
            let reported = try await lab.receiverPosition(host: Self.receiverAddress, port: 8009)
            #expect(reported?.title == "Fault lab movie", "\(String(describing: reported))")
            #expect((reported?.position ?? -1) >= position, "receiver at \(reported?.position ?? -1), resumed at \(position)")
            print("fault-lab (façade): kill -9: resumed \(FaultLab.format(Self.seconds(ContinuousClock.now - restartedAt))) s "
                  + "after the restart at position \(FaultLab.format(position)) s")
            #expect(!driver.output.contains { $0.contains("\"ended\"") }, "\(driver.output)")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }

    @Test func theFacadeAloneFindsADeviceBackAtANewAddressByItsId() async throws {
        try await FaultLab.run { lab in
            var receiver = try await lab.startReceiver(extra: ["--advertise"])
            let driver = try Self.driver(lab, ["--device", lab.deviceId, "--reconnect-timeout", "120"])
            #expect(await FaultLab.event(driver, "loaded") != nil, "\(driver.output) \(driver.errorOutput)")
            kill(receiver.pid, SIGKILL)
            _ = await receiver.waitForExit()
            #expect(await FaultLab.event(driver, "connectionLost") != nil, "\(driver.output)")
            let veth = "cl\(lab.tag)va"
            try await lab.exec("a", ["ip", "addr", "del", "\(Self.receiverAddress)/24", "dev", veth])
            try await lab.exec("a", ["ip", "addr", "add", "\(Self.movedAddress)/24", "dev", veth])
            let restartedAt = ContinuousClock.now
            receiver = try await lab.startReceiver(host: Self.movedAddress, port: 8010, extra: ["--advertise"])
            let resumed = await FaultLab.event(driver, "resumed")
            #expect(resumed != nil, "\(driver.output) \(driver.errorOutput)")
            let resumedAt = ContinuousClock.now
            let reported = try await lab.receiverPosition(host: Self.movedAddress, port: 8010)
            #expect(reported?.title == "Fault lab movie", "\(String(describing: reported))")
            print("fault-lab (façade): new address: resumed \(FaultLab.format(Self.seconds(resumedAt - restartedAt))) s after the "
                  + "restart at \(Self.movedAddress):8010, position \(FaultLab.format(resumed?["position"]?.doubleValue ?? -1)) s")
            _ = await driver.terminate(signal: SIGTERM)
            _ = await receiver.terminate()
        }
    }
}
