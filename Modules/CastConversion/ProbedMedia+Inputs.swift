import CastDeviceProfiles

extension ProbedMedia {
    /// Video from one probed input and audio from another, as one media of two inputs (video-only and audio-only
    /// formats of a video site): the first video stream of `video` becomes input 0's, the first audio stream of
    /// `audio` input 1's; other streams are left out.
    ///
    /// The duration is the longer of the two (each input's timestamps start at zero in the conversion); the
    /// container and start time are the video's (its key frames cut the segments when it is copied).
    /// - Throws: ``ConversionError/Code/noPlayableStream`` when `video` has no video stream or `audio` no audio
    ///   stream; ``ConversionError/Code/invalidOptions`` when either is already made of several inputs.
    public static func merging(video: ProbedMedia, audio: ProbedMedia) throws(ConversionError) -> ProbedMedia {
        guard video.inputs.count == 1, audio.inputs.count == 1 else {
            throw ConversionError(code: .invalidOptions, message: "only media probed from one input each can be merged")
        }
        guard var picture = video.videoStreams.first else {
            throw ConversionError(code: .noPlayableStream, message: "\(video.name) has no video stream")
        }
        guard var sound = audio.audioStreams.first else {
            throw ConversionError(code: .noPlayableStream, message: "\(audio.name) has no audio stream")
        }
        picture.input = 0
        sound.input = 1
        let durations = [video.duration, audio.duration].compactMap { $0 }
        let duration = durations.max()
        let description = MediaDescription(
            container: video.media.container, video: [picture.videoDescription], audio: [sound.audioDescription], subtitles: [],
            duration: duration)
        return ProbedMedia(
            path: nil, formatName: video.formatName, media: description, streams: [picture, sound], duration: duration,
            startTime: video.startTime, bitRate: nil, inputs: [video.inputs[0], audio.inputs[0]])
    }

    /// The media with only the streams `keep` accepts (a manifest's representations but one).
    func keeping(_ keep: (ProbedStream) -> Bool) -> ProbedMedia {
        var copy = self
        copy.streams = streams.filter(keep)
        copy.media = MediaDescription(
            container: media.container, video: copy.streams.filter { $0.kind == .video }.map(\.videoDescription),
            audio: copy.streams.filter { $0.kind == .audio }.map(\.audioDescription),
            subtitles: copy.streams.filter { $0.kind == .subtitle }.map(\.subtitleDescription), duration: media.duration)
        return copy
    }
}
