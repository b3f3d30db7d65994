import CastDiscovery

// Browses mDNS for a moment and prints what it found (or why it found nothing).
let browser = AvahiDeviceBrowser()
let report = await browser.discover(timeout: .seconds(1))
print(report)
// Reads a TXT record the way a device advertises one.
let record = try CastTXTRecord(["id": "0123456789abcdef0123456789abcdef", "fn": "Den", "md": "Chromecast"])
print(record["fn"] ?? "")
