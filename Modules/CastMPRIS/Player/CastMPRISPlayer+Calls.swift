import Castor
import CastMedia
import CastQueue
import Foundation

extension CastMPRISPlayer {
    /// Answers one message to `/org/mpris/MediaPlayer2`. Runs on the D-Bus event loop: everything it
    /// decides is decided now, from the façade as it is; commands run on a task and reply when done.
    func handle(_ message: DBusMessage, on connection: DBusBusConnection) -> Bool {
        guard message.kind == .methodCall, let member = message.member else { return false }
        let arguments: [DBusValue]
        do {
            arguments = try message.arguments()
        } catch {
            reply(to: message, with: .failure(.invalidArgs(error.message)), on: connection)
            return true
        }
        let call = MPRISCall(interface: message.interface, member: member, signature: message.signature, arguments: arguments)
        let state = currentState()
        switch MPRISRequest.response(to: call, state: state) {
        case .reply(let values):
            reply(to: message, with: .success(values), on: connection)
        case .error(let error):
            reply(to: message, with: .failure(error), on: connection)
        case .run(let command):
            let admitted = published.withLock { published in
                guard published.pendingCalls < configuration.maxPendingCalls else { return false }
                published.pendingCalls += 1
                return true
            }
            guard admitted else {
                reply(to: message, with: .failure(.limitsExceeded("Too many calls in progress")), on: connection)
                return true
            }
            Task {
                let result = await self.perform(command, state: state)
                self.published.withLock { $0.pendingCalls -= 1 }
                self.reply(to: message, with: result, on: connection)
            }
        }
        return true
    }

    private func reply(to call: DBusMessage, with result: Result<[DBusValue], MPRISBusError>, on connection: DBusBusConnection) {
        guard !call.noReply else { return }
        let answer: DBusMessage?
        switch result {
        case .success(let values):
            answer = call.makeReturn()
            if let answer, (try? answer.append(values)) == nil {
                reply(to: call, with: .failure(.failed("The reply could not be encoded")), on: connection)
                return
            }
        case .failure(let error):
            answer = call.makeError(name: error.name, message: error.message)
        }
        if let answer { connection.send(answer) }
    }

    /// Runs a command on the façade; the reply's values, or the D-Bus error it fails with.
    func perform(_ command: MPRISCommand, state: MPRISState) async -> Result<[DBusValue], MPRISBusError> {
        if case .quit = command {
            await cast.endSession(stoppingReceiverApp: true)
            return .success([])
        }
        guard let player = cast.player else { return .failure(.failed("There is no Cast session")) }
        do {
            switch command {
            case .play: try await player.play()
            case .pause: try await player.pause()
            case .stop: try await player.stop()
            case .next: try await player.advanceToNext()
            case .previous: try await player.returnToPrevious()
            case .quit: break
            case .seek(let position): try await player.seek(to: position)
            case .setRate(let rate): try await player.setPlaybackSpeed(rate)
            case .setRepeatMode(let mode): try await player.setRepeatMode(mode)
            case .setShuffle(let shuffled): try await player.setShuffled(shuffled)
            case .setVolume(let level):
                guard let manager = cast.deviceManager() else { return .failure(.failed("There is no Cast session")) }
                try await manager.setVolume(Float(level))
                if level > 0, manager.isMuted { try await manager.setMuted(false) }
            case .open(let url, let mimeType):
                try await player.loadItem(from: .url(url, configuration: CastAssetURLConfiguration(mimeType: mimeType)))
            case .add(let url, let mimeType, let afterItem, let makeCurrent):
                let asset = CastAsset.url(url, configuration: CastAssetURLConfiguration(mimeType: mimeType))
                let anchor = afterItem.flatMap { id in player.items.first { $0.id == id } }
                let before = Set(player.items.map(\.id))
                try await player.insertItem(from: asset, after: anchor)
                if makeCurrent, let added = player.items.first(where: { !before.contains($0.id) }) {
                    try await player.setCurrentItem(added)
                }
            case .remove(let id):
                if let item = player.items.first(where: { $0.id == id }) { try await player.remove(item) }
            case .goTo(let id):
                if let item = player.items.first(where: { $0.id == id }) { try await player.setCurrentItem(item) }
            case .tracksMetadata(let tracks):
                let asked = tracks.prefix(max(1, configuration.maxTracks))
                await fetchMissing(asked, player: player, state: state)
                return .success([tracksMetadata(asked, player: player, state: state)])
            }
        } catch {
            return .failure(.failed(error.description))
        }
        return .success([])
    }

    /// Fetches the queue items of `tracks` the sender has not fetched yet, batch by batch, so every
    /// track asked about gets its title. No batch starts after ``trackFetchBudget`` (a D-Bus caller
    /// waits 25 s by default; each batch is bounded by the session's request timeout): a track still
    /// missing then is answered with its id only, as is one whose batch failed.
    private func fetchMissing(_ tracks: ArraySlice<String>, player: CastPlayer, state: MPRISState) async {
        let ids = Set(tracks.compactMap { state.itemIds[$0] })
        let missing = player.items.filter { ids.contains($0.id) && !$0.isFetched }
        let elapsed = stopwatch
        let started = elapsed()
        for start in stride(from: 0, to: missing.count, by: QueueModelState.batchSize) {
            guard elapsed() - started < Self.trackFetchBudget else { return }
            try? await player.fetchItems(Array(missing[start..<min(missing.count, start + QueueModelState.batchSize)]))
        }
    }

    /// How long GetTracksMetadata goes on starting batches of items to fetch.
    static let trackFetchBudget = Duration.seconds(10)

    /// `aa{sv}` for the known tracks among `tracks`, in the order asked (unknown ids are left out).
    private func tracksMetadata(_ tracks: ArraySlice<String>, player: CastPlayer, state: MPRISState) -> DBusValue {
        let entries: [DBusValue] = tracks.compactMap { track in
            guard let id = state.itemIds[track] else { return nil }
            let media = player.items.first { $0.id == id }?.queueItem?.media
            return .vardict(MPRISState.metadata(media, trackId: track, options: options))
        }
        return .array(element: "a{sv}", entries)
    }
}
