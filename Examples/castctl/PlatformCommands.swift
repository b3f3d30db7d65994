import ArgumentParser
import CastChannels
import CastJSON
import CastCore

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the receiver status.")
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        try await Output.run {
            let (status, auth) = try await device.withConnection { connection, status in (status, connection.deviceAuthStatus) }
            var json = status.summaryJSON
            json["device"] = auth.summaryJSON
            Output.print(json, text: "device: \(auth)\n" + status.summaryText, json: device.json)
        }
    }
}

struct Launch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Launch a receiver app.")
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The app id, such as CC1AD845 (Default Media Receiver).") var appId: String
    @Flag(name: .long, help: "Also accept Android TV receivers (supportedAppTypes WEB and ANDROID_TV).")
    var androidTV = false

    func run() async throws {
        try await Output.run {
            let app = try await device.withConnection { connection, _ in
                try await connection.receiver.launch(appId: appId, supportedAppTypes: androidTV ? ["WEB", "ANDROID_TV"] : nil)
            }
            Output.print(
                ["appId": .string(app.appId), "sessionId": .string(app.sessionId), "transportId": .string(app.transportId)],
                text: "launched \(app.displayName) (\(app.appId)), session \(app.sessionId)", json: device.json)
        }
    }
}

struct Stop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop the running receiver app.")
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        try await Output.run {
            let status = try await device.withConnection { connection, status in
                guard let app = status.runningApp else { return status }
                return try await connection.receiver.stop(sessionId: app.sessionId)
            }
            Output.print(status.summaryJSON, text: status.summaryText, json: device.json)
        }
    }
}

struct Volume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set the device volume or mute.")
    @OptionGroup var device: DeviceOptions
    @Argument(help: "The level, from 0 to 1.") var level: Double?
    @Flag(name: .long, help: "Mute the device.") var mute = false
    @Flag(name: .long, help: "Unmute the device.") var unmute = false

    func validate() throws {
        let given = [level != nil, mute, unmute].filter { $0 }.count
        guard given == 1 else { throw ValidationError("Give exactly one of LEVEL, --mute, --unmute") }
        if let level, !(0...1).contains(level) { throw ValidationError("LEVEL must be between 0 and 1") }
    }

    func run() async throws {
        try await Output.run {
            let status = try await device.withConnection { connection, _ in
                if let level { return try await connection.receiver.setVolume(level: level) }
                return try await connection.receiver.setMuted(mute)
            }
            Output.print(status.summaryJSON, text: status.summaryText, json: device.json)
        }
    }
}

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Talk to the running app on a custom channel.", subcommands: [Send.self])

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a JSON message on NAMESPACE to the running app and print the reply.",
            discussion: "Prints the first message the app sends back on the namespace; with --no-wait it only sends.")
        @OptionGroup var device: DeviceOptions
        @Argument(help: "The namespace, urn:x-cast:...") var namespace: String
        @Argument(help: "A JSON object.") var message: String
        @Flag(name: .long, help: "Don't wait for a reply.") var noWait = false

        func run() async throws {
            try await Output.run {
                let namespace = try CastNamespace(namespace)
                let payload = try JSONValue(parsing: message)
                guard payload.objectValue != nil else { throw ValidationError("MESSAGE must be a JSON object") }
                let channel = CastGenericChannel(namespace: namespace)
                let reply: CastChannelMessage? = try await device.withConnection { connection, status in
                    guard status.applications.contains(where: { $0.supports(namespace) }) else {
                        throw CastChannelError(code: .notConnected, message: "No running app lists \(namespace)")
                    }
                    try await connection.add(channel)
                    guard let context = connection.context(for: channel) else {
                        throw CastChannelError(code: .notConnected, message: "Could not connect \(namespace)")
                    }
                    if noWait {
                        try await context.send(payload)
                        return nil
                    }
                    // Custom apps answer in their own way (not always with the requestId), so the
                    // reply is the first message the app sends on the namespace after ours.
                    let messages = channel.messages  // subscribed before sending
                    try await context.send(payload)
                    let timeout = device.requestTimeout
                    return try await withThrowingTaskGroup(of: CastChannelMessage?.self) { group in
                        group.addTask {
                            var iterator = messages.makeAsyncIterator()
                            return await iterator.next()
                        }
                        group.addTask {
                            try await Task.sleep(for: timeout)
                            throw CastChannelError(code: .timeout, message: "No message from the app on \(namespace) within \(timeout)")
                        }
                        let first = try await group.next() ?? nil
                        group.cancelAll()
                        return first
                    }
                }
                let json = reply?.json ?? ["sent": true]
                Output.print(json, text: reply?.text ?? "sent", json: device.json)
            }
        }
    }
}

extension CastDeviceAuthStatus {
    /// The device-authentication outcome as castctl prints it in JSON.
    var summaryJSON: JSONValue {
        switch self {
        case .notChecked: return ["genuine": "unverified"]
        case .verified(let result):
            return ["genuine": "verified", "commonName": .string(result.deviceCommonName), "audioOnly": .bool(result.isAudioOnly)]
        case .failed(let error):
            return ["genuine": "failed", "reason": .string(error.description)]
        }
    }
}
