import CastctlKit
import CastDiscoveryCore
import Foundation
import Testing

/// A folder of its own under the temporary directory, removed afterwards.
struct ScratchFolder: ~Copyable {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("castctl-kit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite struct ConfigFileTests {
    @Test func theStandardFileFollowsXDGConfigHome() {
        #expect(CastctlConfigFile.standard(environment: ["XDG_CONFIG_HOME": "/x/conf", "HOME": "/home/u"]).path == "/x/conf/castor/castctl.conf")
        #expect(CastctlConfigFile.standard(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"]).path
            == "/home/u/.config/castor/castctl.conf")
        #expect(CastctlConfigFile.standard(environment: ["HOME": "/home/u"]).path == "/home/u/.config/castor/castctl.conf")
    }

    @Test func aMissingFileIsEmptyAndTheFirstChangeMakesItAndItsFolder() throws {
        let folder = try ScratchFolder()
        let file = CastctlConfigFile(path: folder.path + "/castor/castctl.conf")
        #expect(try file.read() == CastctlConfiguration())
        try file.update { configuration throws(CastctlError) in try configuration.setAlias("tv", to: "Living Room TV") }
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "[aliases]\ntv = Living Room TV\n")
        #expect(try file.read().alias("tv") == "Living Room TV")
        // Nothing but the file is left in the folder (the temporary file was renamed over it).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/castor") == ["castctl.conf"])
    }

    @Test func aMalformedFileIsNeverRewritten() throws {
        let folder = try ScratchFolder()
        let file = CastctlConfigFile(path: folder.path + "/castctl.conf")
        let bad = "# mine\n[options]\ndevice = tv\ndevcie = oops\n"
        try bad.write(toFile: file.path, atomically: false, encoding: .utf8)
        let before = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        let error = #expect(throws: CastctlError.self) {
            try file.update { configuration throws(CastctlError) in try configuration.setDevice("kitchen") }
        }
        #expect(error?.code == .malformedConfiguration)
        #expect(error?.description == "\(file.path):4: unknown key “devcie” in [options] (castctl reads device)")
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == bad)
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date == before)
    }

    @Test func aFailedChangeWritesNothingAndPermissionsAreKept() throws {
        let folder = try ScratchFolder()
        let file = CastctlConfigFile(path: folder.path + "/castctl.conf")
        try "device = tv\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(throws: CastctlError.self) {
            try file.update { configuration throws(CastctlError) in try configuration.setAlias("bad name", to: "x") }
        }
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "device = tv\n")
        try file.update { configuration throws(CastctlError) in try configuration.setAlias("tv", to: "10.0.0.5") }
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test func notUTF8AndTooLargeAreReadErrors() throws {
        let folder = try ScratchFolder()
        let file = CastctlConfigFile(path: folder.path + "/castctl.conf")
        try Data([0x64, 0x65, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: file.path))
        #expect((#expect(throws: CastctlError.self) { try file.read() })?.message.contains("not UTF-8") == true)
        try Data(count: CastctlConfiguration.maximumBytes + 1).write(to: URL(fileURLWithPath: file.path))
        #expect((#expect(throws: CastctlError.self) { try file.read() })?.message.contains("larger than") == true)
    }
}

@Suite struct DeviceChoiceTests {
    func file(_ text: String?, in folder: borrowing ScratchFolder) throws -> CastctlConfigFile {
        let file = CastctlConfigFile(path: folder.path + "/castctl.conf")
        if let text { try text.write(toFile: file.path, atomically: false, encoding: .utf8) }
        return file
    }

    @Test func precedenceHostThenDeviceThenEnvironmentThenFile() throws {
        let folder = try ScratchFolder()
        let config = try file("device = den\n[aliases]\ntv = Living Room TV\nden = 10.0.0.7:8010\n", in: folder)
        let env = ["CASTCTL_DEVICE": "tv"]
        let host = try DeviceChoice.resolve(host: "10.0.0.1", port: 8011, device: nil, environment: env, file: config)
        #expect(host.reference == .address(KnownHost(host: "10.0.0.1", port: 8011)) && host.source == .hostOption)
        let device = try DeviceChoice.resolve(host: nil, port: 8009, device: "TV", environment: env, file: config)
        #expect(device.reference == .name("Living Room TV") && device.alias == "tv" && device.source == .deviceOption)
        let environment = try DeviceChoice.resolve(host: nil, port: 8009, device: nil, environment: env, file: config)
        #expect(environment.reference == .name("Living Room TV") && environment.source == .environment)
        #expect(environment.description == "device “Living Room TV” (alias tv, from CASTCTL_DEVICE)")
        let fromFile = try DeviceChoice.resolve(host: nil, port: 8009, device: nil, environment: ["CASTCTL_DEVICE": " "], file: config)
        #expect(fromFile.reference == .address(KnownHost(host: "10.0.0.7", port: 8010)))
        #expect(fromFile.source == .configuration(file: config.path, line: 1))
        #expect(fromFile.description == "device at 10.0.0.7:8010 (alias den, from the default device in \(config.path) line 1)")
        let plain = try DeviceChoice.resolve(host: nil, port: 8009, device: "Kitchen speaker", environment: [:], file: config)
        #expect(plain.reference == .name("Kitchen speaker") && plain.alias == nil)
    }

    @Test func noDeviceAnywhereSaysHowToSetOne() throws {
        let folder = try ScratchFolder()
        let error = #expect(throws: CastctlError.self) {
            try DeviceChoice.resolve(host: nil, port: 8009, device: nil, environment: [:], file: try file(nil, in: folder))
        }
        #expect(error?.code == .noDevice)
        #expect(error?.message.contains("castctl config set device") == true)
    }

    @Test func aMalformedFileFailsEvenWithDeviceButNotWithHost() throws {
        let folder = try ScratchFolder()
        let config = try file("[aliases]\ntv\n", in: folder)
        let error = #expect(throws: CastctlError.self) {
            try DeviceChoice.resolve(host: nil, port: 8009, device: "tv", environment: [:], file: config)
        }
        #expect(error?.line == 2)
        #expect(try DeviceChoice.resolve(host: "::1", port: 8009, device: nil, environment: [:], file: config).reference
            == .address(KnownHost(host: "::1", port: 8009)))
    }

    @Test func aBadValueSaysWhereItCameFrom() throws {
        let folder = try ScratchFolder()
        let config = try file("\n\ndevice = x:0\n", in: folder)
        // The parser already refuses it, with the line.
        #expect((#expect(throws: CastctlError.self) {
            try DeviceChoice.resolve(host: nil, port: 8009, device: nil, environment: [:], file: config)
        })?.line == 3)
        let empty = try file("", in: folder)
        #expect((#expect(throws: CastctlError.self) {
            try DeviceChoice.resolve(host: nil, port: 8009, device: nil, environment: ["CASTCTL_DEVICE": "h:99999"], file: empty)
        })?.message.hasPrefix("CASTCTL_DEVICE: ") == true)
        #expect((#expect(throws: CastctlError.self) {
            try DeviceChoice.resolve(host: nil, port: 8009, device: "h:99999", environment: [:], file: empty)
        })?.message.hasPrefix("--device: ") == true)
    }
}
