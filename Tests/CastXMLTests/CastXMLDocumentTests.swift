import Foundation
import Testing

@testable import CastXML

@Suite("Parsing well-formed documents")
struct CastXMLParsingTests {
    @Test func elementsAttributesAndText() throws {
        let document = try CastXMLDocument(parsing: """
            <?xml version="1.0" encoding="UTF-8"?>
            <root version="2">
              <item id="a">Hello &amp; welcome</item>
              <item id="b"><![CDATA[<raw> text]]></item>
              <!-- a comment -->
              <empty/>
            </root>
            """)
        #expect(document.root.name == "root")
        #expect(document.root.attribute("version") == "2")
        let items = document.root.children("item")
        #expect(items.count == 2)
        #expect(items[0].attribute("id") == "a")
        #expect(items[0].text == "Hello & welcome")
        #expect(items[1].text == "<raw> text")
        #expect(document.root.child("empty")?.children.isEmpty == true)
        #expect(document.root.child("missing") == nil)
    }

    @Test func namespaces() throws {
        let document = try CastXMLDocument(parsing: """
            <root xmlns="urn:schemas-upnp-org:device-1-0" xmlns:i="http://www.itunes.com/dtds/podcast-1.0.dtd">
              <device><friendlyName>Living Room</friendlyName></device>
              <i:image i:href="http://host/a.jpg" plain="yes"/>
            </root>
            """)
        let root = document.root
        #expect(root.namespaceURI == "urn:schemas-upnp-org:device-1-0")
        #expect(root.child("device", namespace: "urn:schemas-upnp-org:device-1-0")?.child("friendlyName")?.text == "Living Room")
        #expect(root.child("device", namespace: CastXMLElement.noNamespace) == nil)
        let image = try #require(root.child("image", namespace: "http://www.itunes.com/dtds/podcast-1.0.dtd"))
        #expect(image.prefix == "i")
        #expect(image.attribute("href") == nil)
        #expect(image.attribute("href", namespace: "http://www.itunes.com/dtds/podcast-1.0.dtd") == "http://host/a.jpg")
        #expect(image.attribute("plain") == "yes")
        #expect(root.firstDescendant("friendlyName")?.trimmedText == "Living Room")
    }

    @Test func characterReferencesAndUnicode() throws {
        let document = try CastXMLDocument(parsing: "<a>caf&#xE9; &#x1F600; 日本 &lt;&gt;&quot;&apos;</a>")
        #expect(document.root.text == "café 😀 日本 <>\"'")
    }

    @Test func trimmedText() throws {
        let document = try CastXMLDocument(parsing: "<a>\n   spaced out \t\n</a>")
        #expect(document.root.trimmedText == "spaced out")
    }
}

@Suite("Refusing hostile or broken documents")
struct CastXMLRefusalTests {
    func expectError(_ code: CastXMLError.Code, _ text: String, options: CastXMLParseOptions = .default) {
        do {
            let document = try CastXMLDocument(parsing: text, options: options)
            Issue.record("Expected \(code), parsed \(document.root.name)")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test func billionLaughs() {
        var text = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            text += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        text += "]>\n<lolz>&lol9;</lolz>"
        expectError(.forbiddenDTD, text)
    }

    @Test func externalEntityDoesNotLeakFiles() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
            <r>&x;</r>
            """
        do {
            let document = try CastXMLDocument(parsing: text)
            Issue.record("Parsed a document with an external entity: \(document.root.text)")
        } catch {
            #expect(error.code == .forbiddenDTD)
            #expect(!error.description.contains("root:"))
        }
    }

    @Test func externalDTDIsRefused() {
        expectError(.forbiddenDTD, "<!DOCTYPE r SYSTEM \"http://127.0.0.1:9/evil.dtd\"><r/>")
        expectError(.forbiddenDTD, "<!DOCTYPE html><html/>")
    }

    @Test func parameterEntityIsRefused() {
        expectError(.forbiddenDTD, "<!DOCTYPE r [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]><r/>")
    }

    @Test func undeclaredEntityIsRefused() {
        expectError(.forbiddenEntity, "<r>&nope;</r>")
    }

    @Test func tenMegabyteDocumentIsTooLarge() throws {
        let chunk = "<item>" + String(repeating: "x", count: 1000) + "</item>"
        let text = "<root>" + String(repeating: chunk, count: 10 * 1024 * 1024 / chunk.utf8.count + 1) + "</root>"
        #expect(text.utf8.count > 10 * 1024 * 1024)
        do {
            _ = try CastXMLDocument(parsing: text)
            Issue.record("A 10 MB document passed the default 4 MiB limit")
        } catch {
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("\(text.utf8.count)"))
        }
        // With a larger limit, the same document parses.
        let document = try CastXMLDocument(parsing: text, options: CastXMLParseOptions(maxInputSize: 16 * 1024 * 1024))
        #expect(document.root.elements.count == 10 * 1024 * 1024 / chunk.utf8.count + 1)
    }

    @Test func deepNesting() throws {
        let deep = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        expectError(.tooDeep, deep)
        let shallow = String(repeating: "<a>", count: 20) + "x" + String(repeating: "</a>", count: 20)
        expectError(.tooDeep, shallow, options: CastXMLParseOptions(maxDepth: 10))
        let exact = String(repeating: "<a>", count: 256) + "x" + String(repeating: "</a>", count: 256)
        #expect(try CastXMLDocument(parsing: exact).root.text == "x")
        // Beyond libxml2's own limit of 256 when asked for.
        let document = try CastXMLDocument(parsing: deep, options: CastXMLParseOptions(maxDepth: 400))
        var depth = 1
        var element = document.root
        while let child = element.elements.first {
            depth += 1
            element = child
        }
        #expect(depth == 300)
    }

    @Test func malformed() {
        expectError(.malformed, "<a><b></a>")
        expectError(.malformed, "<a>")
        expectError(.malformed, "not xml at all")
        expectError(.malformed, "<a x='1' x='2'/>")
        expectError(.malformed, "<a/><b/>")
    }

    @Test func empty() {
        expectError(.empty, "")
        expectError(.empty, "   ")
    }

    @Test func errorsCarryALine() {
        do {
            _ = try CastXMLDocument(parsing: "<a>\n<b>\n</c>\n</a>")
            Issue.record("Parsed a broken document")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.line == 3)
        }
    }

    @Test func concurrentParsing() async throws {
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                group.addTask { try CastXMLDocument(parsing: "<n i='\(index)'/>").root.attribute("i") ?? "" }
            }
            var seen: Set<String> = []
            for try await value in group { seen.insert(value) }
            #expect(seen.count == 16)
        }
    }
}
