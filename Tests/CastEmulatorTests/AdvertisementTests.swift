import Foundation
import Testing
@testable import CastEmulator

@Suite("mDNS advertisement")
struct AdvertisementTests {
    let id = UUID(uuidString: "99F3C58B-F347-1CC1-0CD8-7F79D33599CF")!

    @Test func txtRecordHasEveryKeyOfARealDevice() throws {
        let configuration = EmulatedReceiverConfiguration(name: "Living Room TV", id: id)
        let ad = EmulatedReceiverAdvertisement(configuration: configuration, port: 8009)
        #expect(Set(ad.txt.keys) == ["id", "cd", "rm", "ve", "md", "ic", "fn", "ca", "st", "bs", "nf", "rs"])
        #expect(ad.txt["id"] == "99f3c58bf3471cc10cd87f79d33599cf")
        #expect(ad.txt["fn"] == "Living Room TV" && ad.txt["md"] == "Chromecast")
        #expect(ad.txt["ve"] == "05" && ad.txt["ic"] == "/setup/icon.png" && ad.txt["st"] == "0" && ad.txt["rs"] == "")
        #expect(ad.txt["ca"] == "4101")
        let hex = CharacterSet(charactersIn: "0123456789ABCDEF")
        #expect(ad.txt["cd"]?.count == 32 && ad.txt["cd"]!.unicodeScalars.allSatisfy(hex.contains))
        #expect(ad.txt["rm"]?.count == 16 && ad.txt["bs"]?.count == 12 && ad.txt["bs"]?.hasPrefix("FA8FCA") == true)
        #expect(ad.instanceName == "Chromecast-99f3c58bf3471cc10cd87f79d33599cf")
        #expect(ad.serviceType == "_googlecast._tcp" && ad.port == 8009)
        // The same device publishes the same record after a restart.
        #expect(EmulatedReceiverAdvertisement(configuration: configuration, port: 8009) == ad)
    }

    @Test func capabilitiesAndModelFollowTheDeviceKind() {
        let audio = EmulatedReceiverAdvertisement(configuration: .init(id: id, kind: .audio), port: 8009)
        #expect(audio.txt["ca"] == "2052" && audio.txt["md"] == "Chromecast Audio")
        let group = EmulatedReceiverAdvertisement(
            configuration: .init(id: id, kind: .group(members: [EmulatedReceiverGroupMember(name: "A")])), port: 42_001)
        #expect(group.txt["ca"] == "2084" && group.txt["md"] == "Google Cast Group")
        #expect(Int(group.txt["ca"]!)! & 32 == 32)
        #expect(Int(audio.txt["ca"]!)! & 1 == 0)
    }

    @Test func instanceNameStaysWithinDNSLabelLimits() {
        let long = EmulatedReceiverAdvertisement(
            configuration: .init(model: "A Very Long Model Name Indeed", id: id), port: 8009, runningAppStatus: "Default Media Receiver", busy: true)
        #expect(long.instanceName.utf8.count <= 63)
        #expect(long.instanceName.hasPrefix("A-Very-Long-Model-Na-"))
        #expect(long.txt["rs"] == "Default Media Receiver" && long.txt["st"] == "1")
    }
}

@Suite("Device profiles in the configuration")
struct ProfileConfigurationTests {
    let id = UUID(uuidString: "99F3C58B-F347-1CC1-0CD8-7F79D33599CF")!

    @Test("A preset sets the model the device advertises (mDNS md, eureka_info); --model wins")
    func modelFollowsTheProfile() throws {
        let ultra = EmulatedReceiverConfiguration(id: id, profile: .ultra)
        #expect(ultra.model == "Chromecast Ultra")
        let advertisement = EmulatedReceiverAdvertisement(configuration: ultra, port: 8009)
        #expect(advertisement.txt["md"] == "Chromecast Ultra")
        #expect(advertisement.instanceName.hasPrefix("Chromecast-Ultra-"))
        let eureka = EurekaInfo(advertisement: advertisement, kind: ultra.kind).document
        #expect(eureka["device_info"]?["model_name"] == "Chromecast Ultra")
        #expect(EmulatedReceiverConfiguration(profile: .nestHub).model == "Google Nest Hub")
        #expect(EmulatedReceiverConfiguration(profile: .googleTV).model == "Chromecast")
        #expect(EmulatedReceiverConfiguration(model: "Living Room", profile: .ultra).model == "Living Room")
        #expect(EmulatedReceiverConfiguration().model == "Chromecast")
        #expect(EmulatedReceiverConfiguration().profile == .any && !EmulatedReceiverConfiguration().hdmiPassthrough)
    }

    @Test("The audio preset makes an audio-only device; a group stays a group")
    func audioProfileMakesASpeaker() {
        let speaker = EmulatedReceiverConfiguration(id: id, profile: .audioOnly)
        #expect(!speaker.kind.hasVideoOutput && !speaker.kind.isGroup)
        #expect(speaker.model == "Chromecast Audio")
        #expect(EmulatedReceiverAdvertisement(configuration: speaker, port: 8009).txt["ca"] == "2052")
        #expect(EurekaInfo(advertisement: EmulatedReceiverAdvertisement(configuration: speaker, port: 8009), kind: speaker.kind)
            .document["device_info"]?["capabilities"]?["display_supported"] == false)
        let group = EmulatedReceiverConfiguration(kind: .group(members: [EmulatedReceiverGroupMember(name: "A")]), profile: .audioOnly)
        #expect(group.kind.isGroup && group.model == "Google Cast Group")
    }
}
