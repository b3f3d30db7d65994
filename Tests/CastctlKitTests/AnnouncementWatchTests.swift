import CastMedia
import CastctlKit
import Testing

@Suite struct AnnouncementWatchTests {
    func status(_ session: Int, _ state: PlayerState, _ reason: IdleReason? = nil) -> MediaStatus {
        var status = MediaStatus(mediaSessionId: session, playerState: state, currentTime: 0)
        status.idleReason = reason
        return status
    }

    @Test func theReplacedContentGoingIdleIsIgnoredAndTheEndIsFinished() {
        var watch = AnnouncementWatch()
        #expect(watch.handle(.status(status(3, .idle, .interrupted))) == .waiting)  // before the load's reply
        #expect(watch.handle(.loaded(mediaSessionId: 4)) == .waiting)
        #expect(watch.handle(.status(status(3, .idle, .interrupted))) == .waiting)  // the old session
        #expect(watch.handle(.status(status(4, .buffering))) == .waiting)
        #expect(watch.handle(.status(status(4, .playing))) == .waiting)
        #expect(watch.handle(.status(status(4, .idle))) == .waiting)  // no reason: not an end
        #expect(watch.handle(.status(status(4, .idle, .finished))) == .ended(.finished))
        // Later events change nothing.
        #expect(watch.handle(.interrupted) == .ended(.finished))
        #expect(watch.end == .finished)
    }

    @Test func anEndSeenBeforeTheLoadReplyCounts() {
        var watch = AnnouncementWatch()
        #expect(watch.handle(.status(status(4, .idle, .finished))) == .waiting)
        #expect(watch.handle(.loaded(mediaSessionId: 4)) == .ended(.finished))
    }

    @Test(arguments: [
        (IdleReason.error, AnnouncementWatch.End.failed, true, false),
        (.cancelled, .stopped, true, false),
        (.interrupted, .replaced, false, false),
    ])
    func idleReasons(reason: IdleReason, end: AnnouncementWatch.End, restores: Bool, stops: Bool) {
        var watch = AnnouncementWatch()
        _ = watch.handle(.loaded(mediaSessionId: 7))
        #expect(watch.handle(.status(status(7, .idle, reason))) == .ended(end))
        #expect(end.restoresPlayback == restores)
        #expect(end.stopsAnnouncement == stops)
    }

    @Test func aNewerSessionMeansSomeoneLoadedOverIt() {
        var watch = AnnouncementWatch()
        _ = watch.handle(.loaded(mediaSessionId: 7))
        #expect(watch.handle(.status(status(8, .playing))) == .ended(.replaced))
        #expect(!AnnouncementWatch.End.replaced.restoresPlayback)
    }

    @Test func deadlineInterruptionSessionEndAndNoStatus() {
        var timed = AnnouncementWatch()
        _ = timed.handle(.loaded(mediaSessionId: 1))
        #expect(timed.handle(.deadlinePassed) == .ended(.timedOut))
        #expect(AnnouncementWatch.End.timedOut.stopsAnnouncement && AnnouncementWatch.End.timedOut.restoresPlayback)
        var interrupted = AnnouncementWatch()
        #expect(interrupted.handle(.interrupted) == .ended(.interrupted))
        #expect(AnnouncementWatch.End.interrupted.stopsAnnouncement)
        var ended = AnnouncementWatch()
        _ = ended.handle(.loaded(mediaSessionId: 1))
        #expect(ended.handle(.sessionEnded("taken over")) == .ended(.sessionEnded("taken over")))
        #expect(!AnnouncementWatch.End.sessionEnded("x").restoresPlayback)
        var gone = AnnouncementWatch()
        #expect(gone.handle(.status(nil)) == .waiting)  // before the load: the old session's end
        _ = gone.handle(.loaded(mediaSessionId: 1))
        #expect(gone.handle(.status(nil)) == .waiting)  // a stale "no media" from before the load's reply
        #expect(gone.handle(.status(status(1, .playing))) == .waiting)
        #expect(gone.handle(.status(nil)) == .ended(.stopped))
    }
}
