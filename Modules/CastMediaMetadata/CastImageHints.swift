/// Where an image will be shown (`GCKMediaMetadataImageType`).
public struct CastImageType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The raw value, as in Google's sender SDK.
    public var rawValue: Int
    /// Creates a type from its raw value.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// An application-defined use.
    public static let custom = CastImageType(rawValue: 0)
    /// The Cast dialog's device or media row.
    public static let castDialog = CastImageType(rawValue: 1)
    /// A mini controller's thumbnail.
    public static let miniController = CastImageType(rawValue: 2)
    /// A full-screen background (expanded controller, lock screen).
    public static let background = CastImageType(rawValue: 3)

    /// The name of the type.
    public var description: String {
        switch rawValue {
        case 0: "custom"
        case 1: "castDialog"
        case 2: "miniController"
        case 3: "background"
        default: "imageType(\(rawValue))"
        }
    }
}

/// What an image is for and the size it will be drawn at: the input of a ``CastImagePicker``.
public struct CastImageHints: Sendable, Hashable {
    /// Where the image will be shown.
    public var type: CastImageType
    /// The width it will be drawn at, in pixels, when known.
    public var width: Int?
    /// The height it will be drawn at, in pixels, when known.
    public var height: Int?

    /// Creates hints.
    public init(type: CastImageType, width: Int? = nil, height: Int? = nil) {
        self.type = type
        self.width = width
        self.height = height
    }
}

/// Chooses one of a metadata's images for a use (`GCKUIImagePicker`).
public protocol CastImagePicker: Sendable {
    /// The image to show for `hints`, or `nil` for none.
    func image(matching hints: CastImageHints?, from metadata: CastMetadata) -> CastImage?
}

/// The default picker: always the first image, whatever the hints (Google's framework's rule).
public struct FirstImagePicker: CastImagePicker {
    /// Creates the picker.
    public init() {}

    /// The first image, if any.
    public func image(matching hints: CastImageHints?, from metadata: CastMetadata) -> CastImage? {
        metadata.images.first
    }
}

/// A picker that chooses the smallest image covering the hinted size, else the largest one.
///
/// Images without a size count as smaller than any sized one; with no hinted size, or no sized
/// images, it returns the first image.
public struct ClosestSizeImagePicker: CastImagePicker {
    /// Creates the picker.
    public init() {}

    /// The best-fitting image for the hinted size.
    public func image(matching hints: CastImageHints?, from metadata: CastMetadata) -> CastImage? {
        let images = metadata.images
        guard let hints, hints.width != nil || hints.height != nil else { return images.first }
        let sized = images.filter { $0.width != nil && $0.height != nil }
        guard !sized.isEmpty else { return images.first }
        func covers(_ image: CastImage) -> Bool {
            (hints.width.map { image.width! >= $0 } ?? true) && (hints.height.map { image.height! >= $0 } ?? true)
        }
        // In Double: sizes come from the network and their product may not fit an Int.
        func area(_ image: CastImage) -> Double { Double(image.width!) * Double(image.height!) }
        if let covering = sized.filter(covers).min(by: { area($0) < area($1) }) { return covering }
        return sized.max { area($0) < area($1) }
    }
}

extension CastMetadata {
    /// The URL of the image that best matches `hints`, chosen by `picker` (by default the first image).
    public func imageUrl(matching hints: CastImageHints? = nil, picker: any CastImagePicker = FirstImagePicker()) -> URL? {
        picker.image(matching: hints, from: self)?.url
    }
}

public import Foundation
