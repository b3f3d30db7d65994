import CastctlKit
import Foundation
import Testing

@Suite struct ConfigurationTests {
    static let file = "/home/u/.config/castor/castctl.conf"

    func parse(_ text: String) throws(CastctlError) -> CastctlConfiguration {
        try CastctlConfiguration(parsing: text, file: Self.file)
    }

    func error(_ text: String) -> CastctlError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsTheDeviceAndAliasesWithCommentsAndQuotes() throws {
        let configuration = try parse("""
            # castctl
            ; also a comment

            [options]
            device = tv
            [aliases]
            tv = "Living Room TV"
            Kitchen = 192.168.1.20:8009
            padded = "  Spaced Name  "
            escaped = "Bob's \\"Den\\" \\\\ TV"
            """)
        #expect(configuration.device?.value == "tv")
        #expect(configuration.device?.line == 5)
        #expect(configuration.aliases.map(\.name) == ["tv", "Kitchen", "padded", "escaped"])
        #expect(configuration.alias("TV") == "Living Room TV")
        #expect(configuration.alias("kitchen") == "192.168.1.20:8009")
        #expect(configuration.alias("padded") == "  Spaced Name  ")
        #expect(configuration.alias("escaped") == "Bob's \"Den\" \\ TV")
        #expect(configuration.alias("nope") == nil)
    }

    @Test func keysBeforeAnySectionAreOptionsAndCRLFIsRead() throws {
        let configuration = try parse("device = 10.0.0.5\r\n[aliases]\r\nx = y\r\n")
        #expect(configuration.device?.value == "10.0.0.5")
        #expect(configuration.alias("x") == "y")
    }

    /// Every malformed file is an error naming the file and the line.
    @Test(arguments: [
        ("[options]\ndevice = tv\nthis is not a setting\n", 3, "expected KEY = VALUE or [SECTION]"),
        ("[options\n", 1, "must end with ]"),
        ("[speakers]\n", 1, "unknown section [speakers]"),
        ("[options]\ncolour = red\n", 2, "unknown key “colour”"),
        ("device = a\n\ndevice = b\n", 3, "device is set twice in [options] (lines 1 and 3)"),
        ("[aliases]\ntv = a\nTV = b\n", 3, "set twice"),
        ("[aliases]\n9lives = a\n", 2, "not an alias name"),
        ("[aliases]\nliving room = a\n", 2, "not an alias name"),
        ("[options]\ndevice =\n", 2, "device has no value"),
        ("[options]\ndevice = \"unclosed\n", 2, "a quote is not closed"),
        ("[options]\ndevice = \"a\" b\n", 2, "text after the closing quote"),
        ("[options]\ndevice = \"a\\n\"\n", 2, "unknown escape"),
        ("[aliases]\ntv = 10.0.0.5:99999\n", 2, "port out of range"),
        ("[options]\n= tv\n", 2, "a key is missing"),
        ("[options]\ndevice = a\u{7}b\n", 2, "control character (U+7)"),
    ])
    func malformedFilesNameTheLine(text: String, line: Int, message: String) {
        let error = error(text)
        #expect(error?.code == .malformedConfiguration)
        #expect(error?.file == Self.file)
        #expect(error?.line == line)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
        #expect(error?.description.hasPrefix("\(Self.file):\(line): ") == true)
    }

    @Test func anOversizedFileIsRefused() {
        let big = String(repeating: "# padding\n", count: CastctlConfiguration.maximumBytes / 10 + 1)
        #expect(error(big)?.code == .malformedConfiguration)
    }

    @Test func editingKeepsEveryOtherLine() throws {
        var configuration = try parse("""
            # my devices
            [aliases]
            tv = Living Room TV   
            ; the kitchen one
            kitchen=10.0.0.9

            """)
        try configuration.setAlias("bedroom", to: "  Bedroom speaker ")
        try configuration.setAlias("KITCHEN", to: "10.0.0.10:8010")
        try configuration.setDevice("tv")
        #expect(configuration.text == """
            # my devices
            [options]
            device = tv

            [aliases]
            tv = Living Room TV   
            ; the kitchen one
            bedroom = Bedroom speaker
            KITCHEN = 10.0.0.10:8010

            """)
        let reread = try parse(configuration.text)
        #expect(reread.alias("kitchen") == "10.0.0.10:8010")
        #expect(reread.device?.value == "tv")
        #expect(reread.removeAliasCopy("bedroom").aliases.map(\.name) == ["tv", "KITCHEN"])
    }

    @Test func editingAnEmptyFile() throws {
        var configuration = CastctlConfiguration()
        try configuration.setDevice("Living Room TV")
        #expect(configuration.text == "device = Living Room TV\n")
        try configuration.setAlias("tv", to: "Living Room TV")
        #expect(configuration.text == "device = Living Room TV\n\n[aliases]\ntv = Living Room TV\n")
        try configuration.setDevice("192.168.1.4")
        #expect(configuration.text == "device = 192.168.1.4\n\n[aliases]\ntv = Living Room TV\n")
        let removed = configuration.removeDevice()
        let removedAgain = configuration.removeDevice()
        #expect(removed && !removedAgain)
        #expect(configuration.text == "\n[aliases]\ntv = Living Room TV\n")
        #expect(throws: CastctlError.self) { try configuration.setAlias("two words", to: "x") }
        #expect(throws: CastctlError.self) { try configuration.setDevice("host:70000") }
        let quoted = try parse(try { var c = CastctlConfiguration(); try c.setAlias("q", to: "\"quoted\" name"); return c.text }())
        #expect(quoted.alias("q") == "\"quoted\" name")
    }
}

extension CastctlConfiguration {
    func removeAliasCopy(_ name: String) -> CastctlConfiguration {
        var copy = self
        copy.removeAlias(name)
        return copy
    }
}

@Suite struct DeviceReferenceTests {
    @Test(arguments: [
        ("Living Room TV", "name"), ("tv", "name"), ("tv.lan", "name"), ("Speaker: Kitchen", "name"),
        ("10.0.0.5", "address 10.0.0.5:8009"), ("10.0.0.5:8010", "address 10.0.0.5:8010"), ("tv.lan:8009", "address tv.lan:8009"),
        ("fe80::1", "address [fe80::1]:8009"), ("[fe80::1%eth0]:8010", "address [fe80::1%eth0]:8010"), ("::1", "address [::1]:8009"),
        ("99f3c58bf3471cc10cd87f79d33599cf", "id 99f3c58b-f347-1cc1-0cd8-7f79d33599cf"),
        ("99F3C58B-F347-1CC1-0CD8-7F79D33599CF", "id 99f3c58b-f347-1cc1-0cd8-7f79d33599cf"),
        ("  padded  ", "name"),
    ])
    func parses(text: String, expected: String) throws {
        let reference = try DeviceReference(parsing: text)
        switch reference {
        case .name(let name): #expect(expected == "name" && name == text.trimmingCharacters(in: .whitespaces))
        case .address(let host): #expect(expected == "address \(host)")
        case .id(let id): #expect(expected == "id \(id)")
        }
    }

    @Test(arguments: ["", "   ", "10.0.0.5:0", "tv.lan:70000", "[fe80::1", "a\u{0}b", String(repeating: "x", count: 300)])
    func refuses(text: String) {
        #expect(throws: CastctlError.self) { try DeviceReference(parsing: text) }
    }
}
