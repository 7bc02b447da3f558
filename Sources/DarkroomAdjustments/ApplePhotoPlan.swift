import EditVocabulary

/// Apple's geometry as darkroom renders it, a pure value: turn the picture by `straightenAngle`
/// about its centre, keep `window`, then show it in `orientation`.
///
/// The frame is the *picture*: the pixels a render's orientation applies to (a JPEG's stored
/// pixels, a HEIF's image after its own `irot`/`imir`), which is the frame of Photos' master
/// (`masterWidth` × `masterHeight`).
public struct ApplePhotoGeometry: Sendable, Equatable {
    /// Radians, positive = counter-clockwise as the picture is seen (rows top to bottom), about
    /// the picture's centre: the rotation stage's own convention. It is `−Crop.straightenAngle`:
    /// Photos measures the other way (−0.0185 turns the content 1.06° counter-clockwise).
    public var straightenAngle: Double
    /// The part kept, in the unrotated picture's pixels with the origin at the top-left:
    /// Photos' bottom-left `yOrigin` becomes `pictureHeight − yOrigin − height`.
    public var window: PixelRect
    /// Applied last, to the window: Photos' `metadata.orientation` relative to the picture.
    public var orientation: Orientation
    public var pictureSize: PixelSize

    /// The same geometry in the frame of the picture *after* `orientation` (the frame
    /// darkroom's operations see, since a render orients first): the window moves with the
    /// picture, and a mirroring orientation turns the angle the other way.
    public var oriented: (angle: Double, window: PixelRect) {
        let window = orientation.orientedRect(for: window, stored: pictureSize)
        let mirrors = [.upMirrored, .downMirrored, .leftMirrored, .rightMirrored].contains(orientation)
        return (mirrors ? -straightenAngle : straightenAngle, window)
    }

    /// Whether it changes anything beyond the orientation.
    public var cropsOrTurns: Bool {
        straightenAngle != 0 || window != PixelRect(size: pictureSize)
    }

    /// The render steps on the oriented picture: a crop when nothing turns (whole pixels, no
    /// resampling), else one rotation about the picture's centre that keeps the window.
    public func operations() -> [ImageOperation] {
        let (angle, window) = oriented
        guard angle == 0 else { return [.rotate(Rotation(radians: angle, window: .rect(window)))] }
        return window == PixelRect(size: orientation.orientedSize(of: pictureSize)) ? [] : [.crop(window)]
    }
}

/// What darkroom does with one `com.apple.photo` edit on a given original: the geometry it
/// reproduces, what it leaves aside and why. A pure decision, unit-tested with real sidecars.
public struct ApplePhotoPlan: Sendable, Equatable {
    public var geometry: ApplePhotoGeometry
    /// Enabled adjustments whose math is not public, or whose identifier or version darkroom
    /// does not know, by name (`Effect 3DDramaticCool`), in the data's order. Kept in the stored
    /// data byte for byte; left out of a render only when geometry only was asked for.
    public var unsupported: [String]
    /// Adjustments that change nothing in a still: disabled ones, and those about video.
    public var ignored: [String]

    /// Reproduced (version 1): the crop with its straighten.
    public static let geometryIdentifiers: Set<String> = ["Crop"]
    /// About the video of a Live Photo or a movie: nothing to do for the still.
    public static let videoIdentifiers: Set<String> = [
        "LivePhotoKeyFrame", "Trim", "SlowMotion", "PortraitVideo", "VideoStabilize", "AutoLoop", "Mute",
    ]
    /// Photos' adjustments with no public math: refused, never approximated.
    public static let knownUnsupported: Set<String> = [
        "SmartTone", "SmartColor", "SmartBlackAndWhite", "Effect", "Effect3D", "WhiteBalance", "Definition",
        "NoiseReduction", "Vignette", "Retouch", "RedEye", "DepthEffect", "Curves", "Levels", "SelectiveColor",
        "Sharpen", "Grain", "HighResFusion", "RKRawDecodeOperation", "PortraitEffect", "SemanticEnhance",
    ]
    /// A straighten beyond this is not one Photos makes (its dial stops at 45°).
    public static let maxStraighten = Double.pi / 4

    /// Plans `edit` for an original whose picture is `pictureSize` and was turned upright from
    /// its coded pixels by `pictureOrientation` (`.up` for a JPEG, whose picture is its stored
    /// pixels; a HEIF's `irot`/`imir`, which iPhones repeat as the EXIF orientation).
    ///
    /// Throws `.appleAdjustmentUnsupported` naming what cannot be reproduced unless
    /// `geometryOnly`; `.invalidParameter` for a crop outside the picture, a NaN or huge angle,
    /// or a master of another size than the picture.
    public init(
        _ edit: ApplePhotoEdit, pictureSize: PixelSize, pictureOrientation: Orientation = .up,
        geometryOnly: Bool = false
    ) throws {
        var unsupported: [String] = []
        var ignored: [String] = []
        var crop: ApplePhotoAdjustment?
        for adjustment in edit.adjustments {
            let known =
                Self.geometryIdentifiers.contains(adjustment.identifier)
                || Self.videoIdentifiers.contains(adjustment.identifier)
                || Self.knownUnsupported.contains(adjustment.identifier)
            if !adjustment.enabled {
                ignored.append("\(adjustment.name) (disabled)")
            } else if Self.videoIdentifiers.contains(adjustment.identifier) {
                ignored.append("\(adjustment.name) (video)")
            } else if !known {
                unsupported.append("\(adjustment.name) (unknown to darkroom)")
            } else if Self.geometryIdentifiers.contains(adjustment.identifier), adjustment.formatVersion ?? 1 != 1 {
                unsupported.append("\(adjustment.name) version \(adjustment.formatVersion ?? 0) (unknown to darkroom)")
            } else if Self.geometryIdentifiers.contains(adjustment.identifier) {
                guard crop == nil else {
                    throw AdjustmentError(
                        .invalidParameter, "\(ApplePhotoFormat.identifier) data has two Crop adjustments")
                }
                crop = adjustment
            } else {
                unsupported.append(adjustment.name)
            }
        }
        if !unsupported.isEmpty, !geometryOnly {
            throw AdjustmentError(
                .appleAdjustmentUnsupported,
                "\(ApplePhotoFormat.identifier) edit has adjustments darkroom cannot reproduce: "
                    + unsupported.joined(separator: ", ")
                    + "; without Apple's render beside it, render geometry only (worker --apple-geometry-only) or leave it"
            )
        }
        let master = PixelSize(width: edit.masterWidth, height: edit.masterHeight)
        // A master of 0×0 is written for edits that carry no geometry (a movie's portrait video).
        if master != pictureSize, master.area != 0 || crop != nil {
            throw AdjustmentError(
                .invalidParameter,
                "\(ApplePhotoFormat.identifier) edit is for a \(master) master; this original's picture is \(pictureSize)"
            )
        }
        let orientation =
            edit.orientation == 0
            ? Orientation.up : pictureOrientation.inverse.followed(by: Orientation(exifValue: edit.orientation))
        var angle = 0.0
        var window = PixelRect(size: pictureSize)
        if let crop { (angle, window) = try Self.crop(crop, picture: pictureSize) }
        geometry = ApplePhotoGeometry(
            straightenAngle: angle, window: window, orientation: orientation, pictureSize: pictureSize)
        self.unsupported = unsupported
        self.ignored = ignored
    }

    /// A `Crop` adjustment's settings as an angle and a top-left window, checked.
    static func crop(_ crop: ApplePhotoAdjustment, picture: PixelSize) throws -> (Double, PixelRect) {
        func setting(_ key: String, default value: Double? = nil) throws -> Double {
            guard let number = crop.number(key) ?? (crop.has(key) ? nil : value) else {
                throw AdjustmentError(.invalidParameter, "Crop has no number \(key)")
            }
            guard number.isFinite else { throw AdjustmentError(.invalidParameter, "Crop \(key) is \(number)") }
            return number
        }
        let straighten = try setting("straightenAngle", default: 0)
        guard abs(straighten) <= maxStraighten else {
            throw AdjustmentError(
                .invalidParameter,
                "Crop straightenAngle \(straighten) rad is beyond ±π/4; Photos never straightens that far")
        }
        let limit = Double(1 << 20)
        let values = try ["xOrigin", "yOrigin", "width", "height"].map { key in
            let value = try setting(key)
            guard abs(value) <= limit else { throw AdjustmentError(.invalidParameter, "Crop \(key) \(value) is huge") }
            return Int(value.rounded())
        }
        let (x, y, width, height) = (values[0], values[1], values[2], values[3])
        let window = PixelRect(x: x, y: picture.height - y - height, width: width, height: height)
        guard width > 0, height > 0, PixelRect(size: picture).contains(window) else {
            throw AdjustmentError(
                .invalidParameter,
                "Crop \(width)×\(height) at (\(x), \(y)) from the bottom-left lies outside the \(picture) picture")
        }
        return (straighten == 0 ? 0 : -straighten, window)
    }

    /// The warning a geometry-only render records, naming what it left out; nil when nothing was.
    public var geometryOnlyWarning: String? {
        guard !unsupported.isEmpty else { return nil }
        return "geometry only: left out Apple's " + unsupported.joined(separator: ", ")
    }
}
