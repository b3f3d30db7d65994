import CastJSON
import Foundation

/// The device's `/setup/eureka_info` document, as Cast devices serve it on HTTP 8008 and HTTPS 8443.
///
/// Senders read it to learn what mDNS does not say: pychromecast (and catt, which uses it) reads
/// `name`, `device_info.manufacturer`, `device_info.model_name`, `device_info.ssdp_udn` and
/// `device_info.capabilities.{display_supported, multizone_supported}` (`?params=device_info,name`),
/// and `multizone.groups` / `multizone.dynamic_groups` (`?params=multizone`). Every value matches the
/// device's mDNS advertisement (`fn`, `md`, `id`, `bs`, `cd`).
struct EurekaInfo: Sendable {
    /// The firmware version reported as `cast_build_revision` (and in `build_info`).
    static let buildRevision = "1.56.500000"
    /// Longest request target answered; anything longer gets 414.
    static let maximumTargetLength = 2048

    var advertisement: EmulatedReceiverAdvertisement
    var kind: EmulatedReceiverDeviceKind

    /// The whole document.
    var document: [String: JSONValue] {
        let udn = advertisement.id.uuidString.lowercased()
        let bssid = stride(from: 0, to: 12, by: 2).map { offset -> String in
            let text = advertisement.txt["bs"] ?? "FA8FCA000000"
            let start = text.index(text.startIndex, offsetBy: min(offset, text.count))
            let end = text.index(start, offsetBy: min(2, text.distance(from: start, to: text.endIndex)))
            return String(text[start..<end])
        }.joined(separator: ":")
        var groups: [JSONValue] = []
        if kind.isGroup {
            groups.append([
                "name": .string(advertisement.name), "uuid": .string(udn), "elected_leader": "self",
                "cast_port": JSONValue(advertisement.port),
            ])
        }
        return [
            "name": .string(advertisement.name),
            "version": 12,
            "cast_build_revision": .string(Self.buildRevision),
            "build_info": ["cast_build_revision": .string(Self.buildRevision), "system_build_number": "500000"],
            "ssdp_udn": .string(udn),
            "hotspot_bssid": .string(bssid),
            "uptime": 0,
            "device_info": [
                "manufacturer": "Google Inc.",
                "model_name": .string(advertisement.model),
                "product_name": .string(advertisement.model),
                "ssdp_udn": .string(udn),
                "cloud_device_id": .string(advertisement.txt["cd"] ?? ""),
                "capabilities": [
                    "display_supported": JSONValue(kind.hasVideoOutput),
                    "audio_supported": true,
                    "multizone_supported": JSONValue(!kind.hasVideoOutput),
                    "cloudcast_supported": true,
                ],
            ],
            "multizone": ["groups": .array(groups), "dynamic_groups": [], "audio_output_delay": 0],
        ]
    }

    /// The response to a GET of `target`: 200 with the document (only the top-level members named
    /// in `params`, when it is given) for `/setup/eureka_info`, 404 for other paths.
    func response(forTarget target: String) -> (status: Int, body: JSONValue) {
        guard target.utf8.count <= Self.maximumTargetLength else { return (414, ["error": "URI too long"]) }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.first.map(String.init) == "/setup/eureka_info" else { return (404, ["error": "not found"]) }
        let document = document
        guard let params = Self.params(query: parts.count > 1 ? String(parts[1]) : "") else { return (200, .object(document)) }
        var selected: [String: JSONValue] = [:]
        for key in params { selected[key] = document[key] }
        return (200, .object(selected))
    }

    /// The comma-separated names of the `params` query member (percent-decoded), or `nil` without one.
    static func params(query: String) -> [String]? {
        for pair in query.split(separator: "&") {
            let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard keyValue.first == "params" else { continue }
            let value = keyValue.count > 1 ? String(keyValue[1]) : ""
            let decoded = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value
            return decoded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return nil
    }
}
