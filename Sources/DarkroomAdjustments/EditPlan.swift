import EditVocabulary

/// The picture a layer starts from: the rows the decoder delivers, and how they stand.
public struct Picture: Sendable, Equatable {
    /// The rows' size: a JPEG's stored pixels, a HEIF's image after its own `irot`/`imir`, a render's pixels.
    public var size: PixelSize
    /// What turns the rows upright; a render applies it first unless the edit decides otherwise.
    public var orientation: Orientation
    /// How the decoder already turned the coded pixels into these rows: a HEIF original's
    /// `irot`/`imir`, which iPhones repeat as the EXIF orientation; `.up` for a JPEG and a render.
    public var decoderTurn: Orientation

    public init(size: PixelSize, orientation: Orientation, decoderTurn: Orientation = .up) {
        self.size = size
        self.orientation = orientation
        self.decoderTurn = decoderTurn
    }

    /// Where a layer starts.
    public enum Start: Sendable, Equatable {
        /// The imported original; `recorded` is the orientation its import recorded (or the one
        /// `darkroom render --orientation` gives), nil to read it from the EXIF.
        case original(recorded: Orientation?)
        /// A render (of the layer below, or one darkroom wrote): upright already.
        case render
    }

    /// The one rule for what a layer starts from. A JPEG's rows are its stored pixels, turned by
    /// its EXIF orientation. A HEIF's decoder applies `irot`/`imir` itself, and its EXIF
    /// orientation repeats them as information only: applying it again would turn the photo twice.
    public init(size: PixelSize, start: Start, decoderTurnsUpright: Bool, exifOrientation: Orientation) {
        switch start {
        case .render:
            self.init(size: size, orientation: .up)
        case .original(let recorded):
            self.init(
                size: size, orientation: recorded ?? (decoderTurnsUpright ? .up : exifOrientation),
                decoderTurn: decoderTurnsUpright ? exifOrientation : .up)
        }
    }
}

/// How strictly an edit is planned.
public struct EditOptions: Sendable, Equatable {
    /// Render what can be reproduced and name the rest in a warning, instead of refusing the
    /// edit (`--apple-geometry-only`).
    public var leaveOutUnsupported: Bool

    public init(leaveOutUnsupported: Bool = false) {
        self.leaveOutUnsupported = leaveOutUnsupported
    }
}

/// Something an edit's plan left out or changed, said on the record.
public struct EditWarning: Sendable, Equatable {
    /// Stable, for programs: `apple_geometry_only`.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public static let appleGeometryOnly = "apple_geometry_only"
}

/// One layer's adjustment data planned on the picture it starts from: the seam between
/// adjustment data and the renderer. Every editor answers it; the renderer needs nothing else.
public struct EditPlan: Sendable, Equatable {
    /// The render steps, on the picture once `orientation` is applied.
    public var operations: [ImageOperation]
    /// Applied to the picture's rows first.
    public var orientation: Orientation
    public var warnings: [EditWarning]
    /// What the new adjustment record keeps: the data as given, or migrated to the editor's
    /// current version for a re-render.
    public var record: EncodedAdjustment

    public init(
        operations: [ImageOperation], orientation: Orientation, warnings: [EditWarning] = [],
        record: EncodedAdjustment
    ) {
        self.operations = operations
        self.orientation = orientation
        self.warnings = warnings
        self.record = record
    }

    /// What the renderer applies.
    public var pictureEdit: PictureEdit { PictureEdit(operations: operations, orientation: orientation) }
}
