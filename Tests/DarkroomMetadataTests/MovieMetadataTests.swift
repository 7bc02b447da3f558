import ByteStreams
import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import LibHeif
import Testing

/// Capture dates and positions an image sequence keeps in its movie box: real AVIF sequences
/// from libavif's test suite (their `mvhd`), and QuickTime keys and user data as Apple's and
/// Android's cameras write them, which no public test suite has, so these are built here.
@Suite struct MovieMetadataTests {
    static func movieBox(of corpusFile: String) throws -> [UInt8]? {
        let path = Fixtures.root.appendingPathComponent("corpus/\(corpusFile)").path
        return try HEIFDecoder(source: try FileSource(path: path)).header.movieBox
    }

    static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    // MARK: Boxes

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        precondition(type.unicodeScalars.count == 4)
        return be32(payload.count + 8) + type.unicodeScalars.map { UInt8($0.value) } + payload
    }

    static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    /// A movie header of `version` whose creation time is `seconds` after 1904.
    static func mvhd(version: UInt8 = 0, seconds: UInt64) -> [UInt8] {
        let time: [UInt8] =
            version == 1
            ? (0..<8).map { UInt8(truncatingIfNeeded: seconds >> (56 - 8 * $0)) } : be32(Int(seconds))
        return box("mvhd", [version, 0, 0, 0] + time + [UInt8](repeating: 0, count: 90))
    }

    /// QuickTime metadata as an iPhone writes it: `meta` (no version), `hdlr` mdta, `keys`, `ilst`.
    static func quickTimeMeta(_ items: [(String, String)], fullBox: Bool = false) -> [UInt8] {
        let handler = box("hdlr", [0, 0, 0, 0] + [0, 0, 0, 0] + Array("mdta".utf8) + [UInt8](repeating: 0, count: 13))
        let keys = box(
            "keys",
            [0, 0, 0, 0] + be32(items.count)
                + items.flatMap { be32($0.0.utf8.count + 8) + Array("mdta".utf8) + Array($0.0.utf8) })
        let list = items.enumerated().flatMap { index, item in
            be32(8 + 16 + item.1.utf8.count) + be32(index + 1) + box("data", be32(1) + be32(0) + Array(item.1.utf8))
        }
        return box("meta", (fullBox ? [0, 0, 0, 0] : []) + handler + keys + box("ilst", list))
    }

    /// User data of QuickTime texts: a 16-bit length and language, then the text.
    static func userData(_ texts: [(String, String)]) -> [UInt8] {
        box(
            "udta",
            texts.flatMap { type, text in
                box(type, [UInt8(text.utf8.count >> 8), UInt8(text.utf8.count & 0xff), 0x15, 0xc7] + Array(text.utf8))
            })
    }

    /// 2023-09-06 17:35:53 UTC in seconds since 1904.
    static let libavifSeconds: UInt64 = 1_694_021_753 + 2_082_844_800

    // MARK: Real files

    @Test func anAVIFSequencesMovieHeaderGivesItsDate() throws {
        for file in ["libavif/colors-animated-8bpc.avif", "libavif/colors-animated-8bpc-audio.avif"] {
            let box = try #require(try Self.movieBox(of: file), "\(file) has a moov box")
            let read = MovieMetadata.read(movieBox: box)
            #expect(read.creationDate == Self.utc("2023-09-06T17:35:53Z"), "\(file)")
            #expect(read.dateSource == "QuickTime mvhd")
            #expect(read.latitude == nil && read.warnings.isEmpty)
        }
    }

    @Test func aCreationTimeOfZeroIsNoDate() throws {
        let box = try #require(try Self.movieBox(of: "libavif/poc_b_506387278.avif"))
        let read = MovieMetadata.read(movieBox: box)
        #expect(read.creationDate == nil && read.dateSource == nil && read.warnings.isEmpty)
    }

    @Test func aStillImageHasNoMovieBox() throws {
        #expect(try Self.movieBox(of: "osxphotos/IMG_1853.HEIC") == nil)
    }

    @Test func anImportReadsTheSequencesDateThroughMetadataReader() throws {
        let box = try #require(try Self.movieBox(of: "libavif/colors-animated-8bpc.avif"))
        let read = MetadataReader.read(app1Payload: nil, xmpPacket: nil, movieBox: box).metadata
        #expect(read.creationDate == Self.utc("2023-09-06T17:35:53Z"))
        #expect(read.creationDateSource == "QuickTime mvhd")
    }

    // MARK: Keys and user data

    @Test func quickTimeKeysWinOverUserDataAndTheMovieHeader() {
        let movie = Self.box(
            "moov",
            Self.mvhd(version: 1, seconds: Self.libavifSeconds)
                + Self.quickTimeMeta([
                    ("com.apple.quicktime.make", "Apple"),
                    ("com.apple.quicktime.creationdate", "2019-04-14T12:01:49-0700"),
                    ("com.apple.quicktime.location.ISO6709", "+37.3349-122.0090+010.000/"),
                ]) + Self.userData([("©day", "2020-01-01T00:00:00Z")]))
        let read = MovieMetadata.read(movieBox: movie)
        #expect(read.creationDate == Self.utc("2019-04-14T19:01:49Z"))
        #expect(read.dateSource == "QuickTime com.apple.quicktime.creationdate")
        #expect(read.latitude == 37.3349 && read.longitude == -122.0090 && read.altitude == 10)
    }

    @Test func anISOMetaBoxWithVersionIsReadToo() {
        let movie = Self.box(
            "moov", Self.quickTimeMeta([("com.apple.quicktime.creationdate", "2019-04-14T12:01:49Z")], fullBox: true))
        #expect(MovieMetadata.read(movieBox: movie).creationDate == Self.utc("2019-04-14T12:01:49Z"))
    }

    @Test func userDataStandsInForKeys() {
        let movie = Self.box(
            "moov",
            Self.mvhd(seconds: Self.libavifSeconds)
                + Self.userData([("©day", "2021-07-04T10:15:30+0200"), ("©xyz", "-33.8568+151.2153/")]))
        let read = MovieMetadata.read(movieBox: movie)
        #expect(read.creationDate == Self.utc("2021-07-04T08:15:30Z"))
        #expect(read.dateSource == "QuickTime ©day")
        #expect(read.latitude == -33.8568 && read.longitude == 151.2153 && read.altitude == nil)
    }

    @Test func exifStillWinsOverTheMovie() throws {
        let payload = try exifPayload("canon_hdr_NO.jpg")
        let movie = Self.box("moov", Self.mvhd(seconds: Self.libavifSeconds))
        let read = MetadataReader.read(app1Payload: payload, movieBox: movie).metadata
        #expect(read.creationDateSource?.hasPrefix("EXIF") == true)
    }

    // MARK: Hostile boxes

    @Test func valuesThatAreNoDateOrPositionAreWarnedAboutAndIgnored() {
        let movie = Self.box(
            "moov",
            Self.quickTimeMeta([
                ("com.apple.quicktime.creationdate", "yesterday\n\u{1b}[31m"),
                ("com.apple.quicktime.location.ISO6709", "+3720.29-12200.54/"),
            ]) + Self.mvhd(seconds: Self.libavifSeconds))
        let read = MovieMetadata.read(movieBox: movie)
        #expect(read.dateSource == "QuickTime mvhd")
        #expect(read.latitude == nil)
        #expect(read.warnings.count == 2)
        #expect(read.warnings.allSatisfy { !$0.contains("\n") && !$0.contains("\u{1b}") }, "\(read.warnings)")
    }

    @Test func aCreationTimeBeyondTheYear9999IsRefused() {
        let read = MovieMetadata.read(movieBox: Self.box("moov", Self.mvhd(version: 1, seconds: UInt64.max)))
        #expect(read.creationDate == nil && read.warnings.count == 1)
    }

    @Test func truncatedAndOverrunningBoxesReadAsNothing() {
        let whole = Self.box(
            "moov",
            Self.mvhd(seconds: Self.libavifSeconds)
                + Self.quickTimeMeta([("com.apple.quicktime.creationdate", "2019-04-14T12:01:49Z")]))
        for cut in stride(from: 0, to: whole.count, by: 7) {
            _ = MovieMetadata.read(movieBox: Array(whole.prefix(cut)))
        }
        // A key index past the keys, a key size past its box, a box claiming 4 GiB.
        var bad = whole
        if let index = bad.indices.first(where: { bad[$0...].starts(with: Array("keys".utf8)) }) {
            bad.replaceSubrange((index + 12)..<(index + 16), with: Self.be32(0x7fff_ffff))
        }
        #expect(MovieMetadata.read(movieBox: bad).dateSource == "QuickTime mvhd")
        let huge = Self.be32(Int(UInt32.max)) + Array("moov".utf8) + Self.mvhd(seconds: 1)
        #expect(MovieMetadata.read(movieBox: huge).creationDate == nil)
        let largeSize = [0, 0, 0, 1] + Array("moov".utf8) + [UInt8](repeating: 0xff, count: 8)
        #expect(MovieMetadata.read(movieBox: largeSize).creationDate == nil)
    }
}
