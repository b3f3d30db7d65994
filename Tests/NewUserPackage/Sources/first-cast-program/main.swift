import CastChannels
import CastDiscovery
import CastKnownHosts
import CastMediaMetadata
import CastEmulator
import CastTLS
import Castor
import Foundation

let greetingApp = EmulatedReceiverApp(
    appId: "A1B2C3D4", displayName: "Greeter", namespaces: ["urn:x-cast:com.example.greeting"], handler: GreetingApp())
let tv = EmulatedReceiver(configuration: EmulatedReceiverConfiguration(name: "Living Room TV", port: 0, apps: [greetingApp]))
try await tv.start()
let port = await tv.port ?? 8009

let browser = KnownHostsBrowser(configuration: .init(hosts: [KnownHost(host: "127.0.0.1", port: port)]))
await browser.probeAll()
guard let device = browser.devices.first else {
    print(DiscoveryReport(devices: [], diagnostics: browser.diagnostics, timeout: .seconds(5), source: .knownHost))
    exit(1)
}
print("found \(device.friendlyName)")

let cast = Cast()
try await cast.startSession(with: device)
guard let player = cast.player else { fatalError("a session always has a player") }
let movies = ["One", "Two"].map { title in
    CastAsset.url(URL(string: "https://example.com/\(title.lowercased()).mp4")!,
                  configuration: CastAssetURLConfiguration(mimeType: "video/mp4"), metadata: CastMetadata(title: title))
}
try await player.loadItems(from: movies, with: CastLoadOptions(shouldPlay: false))
print("loaded: \(player.playerState.rawValue), shouldPlay \(player.shouldPlay)")
try await player.play()
print("play(): \(player.playerState.rawValue), shouldPlay \(player.shouldPlay)")
try await player.advanceToNext()
let asset = try await player.currentItem?.fetch()
print("now: \(asset?.metadata?.title ?? "untitled")")
await cast.endSession()

let connection = CastConnection(transport: try await TLSCastTransport.connect(host: "127.0.0.1", port: port))
let greeting = GreetingChannel()
try await connection.add(greeting)
try await connection.start()
_ = try await connection.receiver.launch(appId: "A1B2C3D4")
_ = try await connection.waitUntilConnected(greeting)
print(try await greeting.greet("Linux"))
await connection.close()
await tv.stop()
