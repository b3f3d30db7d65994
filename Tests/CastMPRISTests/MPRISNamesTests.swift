@testable import CastMPRIS
import Testing

@Suite struct MPRISNamesTests {
    @Test func objectPathValidation() {
        #expect(DBusValue.isValidObjectPath("/"))
        #expect(DBusValue.isValidObjectPath("/org/castor/Track/1_2"))
        #expect(!DBusValue.isValidObjectPath("/org/"))
        #expect(!DBusValue.isValidObjectPath("org"))
        #expect(!DBusValue.isValidObjectPath("/a//b"))
        #expect(!DBusValue.isValidObjectPath("/a-b"))
    }
}
