import ByteStreams
import DarkroomAdjustments
import DarkroomImaging
import DarkroomMetadata
import Foundation

/// What an import records of a photo: its header's facts and its capture metadata, read by the
/// codecs and the EXIF and XMP parsers from bytes someone uploaded. `DecoderSandbox.facts` reads
/// them in a decoding child; `read(from:name:)` is the same reading in this process.
public struct PhotoFacts: Codable, Sendable, Equatable {
    /// The stored pixels' size (before any orientation), as `assets.pixel_width/height` keep it.
    public var storedWidth: Int
    public var storedHeight: Int
    /// The extension its format is stored under ("jpg", "heic", "avif"), told by content.
    public var fileExtension: String
    /// What `assets.orientation` holds: how the rows the decoder delivers must be turned to
    /// stand upright, which is what a render of the original applies (`Picture`'s rule: a
    /// HEIF's is 1 whatever its EXIF says, since its decoder applies `irot`/`imir` itself).
    public var orientation: Int
    /// The capture metadata its EXIF, XMP and QuickTime metadata give (position, date and
    /// where it came from).
    public var metadata: PhotoMetadata
    /// What could not be read, left empty: the metadata's notes, then the header's.
    public var warnings: [String]

    /// Reads the header of `source` (named `name` in errors), then its EXIF and XMP.
    public static func read(from source: any ByteSource, name: String) throws(PhotoFactsError) -> PhotoFacts {
        let header: SourceHeader
        do {
            header = try SourceHeader.read(from: source)
        } catch let error as StreamError {
            throw PhotoFactsError(.unreadable, object: name, message: "cannot be read: \(error.message)", cause: error)
        } catch let error as CodecError {
            // No cause for bytes that are no JPEG at all: libjpeg's message quotes them.
            throw PhotoFactsError(
                .notAPhoto, object: name, message: Self.refusal(error), cause: Self.quotesBytes(error) ? nil : error)
        } catch {
            throw PhotoFactsError(.notAPhoto, object: name, message: "cannot be read as a photo: \(error)")
        }
        var metadata = MetadataReader.read(
            app1Payload: header.exifPayload, xmpPacket: header.xmpPacket, movieBox: header.movieBox)
        let info = metadata.metadata
        metadata.warnings += header.metadataWarnings
        let size = header.storedSize
        let orientation = Picture(
            size: size, start: .original(recorded: nil), decoderTurnsUpright: header.carriesOwnOrientation,
            exifOrientation: Orientation(exifValue: info.orientation)
        ).orientation.rawValue
        return PhotoFacts(
            storedWidth: size.width, storedHeight: size.height, fileExtension: header.fileExtension,
            orientation: orientation, metadata: info, warnings: metadata.warnings)
    }

    /// Whether the codec's message repeats the file's first bytes: libjpeg's does for a file that
    /// is no JPEG at all.
    static func quotesBytes(_ error: CodecError) -> Bool {
        error.format == .jpeg && error.code == .corrupt && error.byteOffset == 0
    }

    /// Why the codec refused the bytes, in words that never quote them.
    static func refusal(_ error: CodecError) -> String {
        if quotesBytes(error) { return "is not a photo darkroom reads (JPEG, HEIC or AVIF, told by content)" }
        let note =
            switch (error.format, error.code) {
            case (.jpeg, .corrupt): " (not a readable JPEG, HEIC or AVIF)"
            case (.heif, _) where error.isDamagedData: " (not a readable HEIF)"
            default: ""
            }
        return error.message + note
    }

    /// Whether the facts are within what any photo can have: a child's answer is checked
    /// before it is believed (its sizes and strings reach the catalogue).
    var isWithinBounds: Bool {
        (1...Self.maxSide).contains(storedWidth) && (1...Self.maxSide).contains(storedHeight)
            && (1...8).contains(orientation) && fileExtension.utf8.count <= 8
            && fileExtension.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A }
            && warnings.count <= Bounds.maxItems && warnings.allSatisfy { $0.utf8.count <= Bounds.maxText }
            && [metadata.creationDateSource, metadata.cameraMake, metadata.cameraModel].allSatisfy {
                ($0?.utf8.count ?? 0) <= 256
            }
    }

    /// Larger than any side a JPEG (65 535) or a HEIF grid darkroom reads can have.
    static let maxSide = 1 << 20
}

/// Why a photo's facts could not be read: its bytes could not be read, they are no photo
/// darkroom reads, or the child reading them failed. The message names the cause in words and
/// never quotes the bytes.
public struct PhotoFactsError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Codable, Sendable {
        case unreadable = "photo_unreadable"
        case notAPhoto = "not_a_photo"
        /// The decoding child crashed, was stopped by its filter, broke the channel's rules or
        /// could not start: bytes made to attack a decoder, a decoder's bug, or a machine
        /// without the sandbox (`--decoder-sandbox off`).
        case decodingFailed = "photo_decoding_failed"
    }

    public var code: Code
    /// The file or object, as the caller named it.
    public var object: String
    public var message: String
    /// The codec's or the stream's error, typed, when read in this process (a child's does not
    /// cross the channel).
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, object: String, message: String, cause: (any Error & Sendable)? = nil) {
        (self.code, self.object, self.message, self.cause) = (code, object, message, cause)
    }

    enum CodingKeys: String, CodingKey { case code, object, message }

    public static func == (lhs: PhotoFactsError, rhs: PhotoFactsError) -> Bool {
        (lhs.code, lhs.object, lhs.message) == (rhs.code, rhs.object, rhs.message)
    }

    public var description: String { "\(object): \(message)" }
}
