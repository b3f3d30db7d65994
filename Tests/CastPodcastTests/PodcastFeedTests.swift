import CastXML
import Foundation
import Testing

import CastMediaMetadata
@testable import CastPodcast

@Suite("Podcast feeds")
struct PodcastFeedTests {
    static let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
          <channel>
            <title>Castor Radio</title>
            <link>https://example.com/podcast</link>
            <description>Weekly &amp; fun</description>
            <itunes:author>The Castor Team</itunes:author>
            <itunes:image href="https://example.com/art.jpg"/>
            <image><url>https://example.com/rss-art.png</url><title>Castor Radio</title></image>
            <item>
              <title>Episode 3: Queues</title>
              <guid isPermaLink="false">castor-3</guid>
              <pubDate>Tue, 03 Mar 2026 10:15:00 +0100</pubDate>
              <enclosure url="https://example.com/ep3.mp3" type="audio/mpeg" length="12345678"/>
              <itunes:duration>1:02:03</itunes:duration>
              <itunes:image href="https://example.com/ep3.jpg"/>
              <itunes:season>1</itunes:season>
              <itunes:episode>3</itunes:episode>
              <description><![CDATA[<p>All about queues</p>]]></description>
            </item>
            <item>
              <title>Episode 2: Video</title>
              <guid>https://example.com/ep2</guid>
              <pubDate>Mon, 2 Feb 26 08:00 GMT</pubDate>
              <enclosure url="https://example.com/ep2.mp4" type="video/mp4" length="99"/>
              <itunes:duration>45:30</itunes:duration>
            </item>
            <item>
              <title>Episode 1</title>
              <pubDate>not a date</pubDate>
              <enclosure url="https://example.com/ep1.m4a" type="audio/mp4"/>
              <itunes:duration>1830</itunes:duration>
            </item>
            <item><title>Announcement without audio</title></item>
          </channel>
        </rss>
        """

    @Test func parsesChannelAndEpisodes() throws {
        let feed = try PodcastFeed(parsing: Data(Self.feed.utf8))
        #expect(feed.title == "Castor Radio")
        #expect(feed.description == "Weekly & fun")
        #expect(feed.author == "The Castor Team")
        #expect(feed.link?.absoluteString == "https://example.com/podcast")
        #expect(feed.artwork?.absoluteString == "https://example.com/art.jpg")
        #expect(feed.episodes.count == 3)

        let third = feed.episodes[0]
        #expect(third.title == "Episode 3: Queues")
        #expect(third.guid == "castor-3")
        #expect(third.enclosure == PodcastEnclosure(url: URL(string: "https://example.com/ep3.mp3")!, type: "audio/mpeg", length: 12_345_678))
        #expect(third.duration == 3723)
        #expect(third.publicationDate == Date(timeIntervalSince1970: 1_772_529_300))  // 2026-03-03T09:15:00Z
        #expect(third.artwork?.absoluteString == "https://example.com/ep3.jpg")
        #expect(third.summary == "<p>All about queues</p>")
        #expect(third.season == 1 && third.episodeNumber == 3)

        let second = feed.episodes[1]
        #expect(second.duration == 2730)
        #expect(second.publicationDate == Date(timeIntervalSince1970: 1_770_019_200))  // 2026-02-02T08:00:00Z
        #expect(second.enclosure.length == 99)

        let first = feed.episodes[2]
        #expect(first.duration == 1830)
        #expect(first.publicationDate == nil)
        #expect(first.enclosure.length == nil)
        #expect(first.guid == nil)
    }

    @Test func episodeMetadata() throws {
        let feed = try PodcastFeed(parsing: Data(Self.feed.utf8))
        let audio = feed.episodes[0].metadata(in: feed)
        #expect(audio.metadataType == .musicTrack)
        #expect(audio.title == "Episode 3: Queues")
        #expect(audio.artist == "The Castor Team")
        #expect(audio.albumName == "Castor Radio")
        #expect(audio.imageUrl()?.absoluteString == "https://example.com/ep3.jpg")
        #expect(audio.releaseDate == "2026-03-03T09:15:00Z")
        let video = feed.episodes[1].metadata(in: feed)
        #expect(video.metadataType == .generic)
        #expect(video.subtitle == "Castor Radio")
        #expect(video.imageUrl()?.absoluteString == "https://example.com/art.jpg")
    }

    @Test func rssImageFallback() throws {
        let text = "<rss><channel><title>T</title><image><url>https://e.com/i.png</url></image></channel></rss>"
        let feed = try PodcastFeed(parsing: Data(text.utf8))
        #expect(feed.artwork?.absoluteString == "https://e.com/i.png")
        #expect(feed.episodes.isEmpty)
    }

    @Test func durations() {
        #expect(PodcastFeed.parseDuration("1:02:03") == 3723)
        #expect(PodcastFeed.parseDuration("02:03") == 123)
        #expect(PodcastFeed.parseDuration("75:00") == 4500)
        #expect(PodcastFeed.parseDuration("90") == 90)
        #expect(PodcastFeed.parseDuration("90.5") == 90.5)
        #expect(PodcastFeed.parseDuration("1:60:00") == nil)
        #expect(PodcastFeed.parseDuration("abc") == nil)
        #expect(PodcastFeed.parseDuration("") == nil)
        #expect(PodcastFeed.parseDuration("1:2:3:4") == nil)
        #expect(PodcastFeed.parseDuration("-5") == nil)
    }

    @Test func rfc822Dates() {
        #expect(RFC822Date.parse("Sat, 07 Sep 2002 00:00:01 GMT") == Date(timeIntervalSince1970: 1_031_356_801))
        #expect(RFC822Date.parse("07 Sep 2002 00:00:01 -0500") == Date(timeIntervalSince1970: 1_031_374_801))
        #expect(RFC822Date.parse("Sat, 07 Sep 2002 00:00:01 EDT") == Date(timeIntervalSince1970: 1_031_371_201))
        #expect(RFC822Date.parse("Sat, 07 September 2002 00:00 UT") == Date(timeIntervalSince1970: 1_031_356_800))
        #expect(RFC822Date.parse("2002-09-07T00:00:01Z") == nil)
        #expect(RFC822Date.parse("Sat, 32 Sep 2002 00:00:01 GMT") == nil)
        #expect(RFC822Date.parse("Sat, 07 Sep 2002 25:00:01 GMT") == nil)
        #expect(RFC822Date.parse("Sat, 07 Sep 2002 00:00:01 XYZ") == nil)
    }

    @Test func refusesHostileAndWrongDocuments() {
        do {
            _ = try PodcastFeed(parsing: Data(#"<!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss><channel><title>&x;</title></channel></rss>"#.utf8))
            Issue.record("parsed an XXE feed")
        } catch {
            #expect(error.code == .invalidXML)
            #expect(error.xmlError?.code == .forbiddenDTD)
        }
        do {
            _ = try PodcastFeed(parsing: Data("<feed xmlns='http://www.w3.org/2005/Atom'/>".utf8))
            Issue.record("parsed an Atom feed as RSS")
        } catch {
            #expect(error.code == .notAFeed)
        }
        do {
            _ = try PodcastFeed(parsing: Data("<rss><channel>".utf8))
            Issue.record("parsed a truncated feed")
        } catch {
            #expect(error.xmlError?.code == .malformed)
        }
    }
}
