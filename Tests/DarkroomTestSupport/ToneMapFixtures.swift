import Foundation

/// HEIF and AVIF files with an ISO 21496-1 gain map (a `tmap` item whose `dimg` inputs are the
/// primary image and the map), and hostile copies of them made by patching a few bytes.
/// See Tests/Fixtures/corpus/README.md for where they come from and their licences.
public enum ToneMapFixtures {
    /// libavif's 400×300 SDR photo (sRGB nclx) with a 400×300 three-channel map: items 1 (the
    /// primary), 2 (the `tmap`), 3 (the map).
    public static let avif = Fixtures.root.appendingPathComponent("corpus/libavif/seine_sdr_gainmap_srgb.avif")
    /// The same photo as an HDR base (PQ) whose map goes down to SDR.
    public static let hdrBaseAVIF = Fixtures.root.appendingPathComponent("corpus/libavif/seine_hdr_gainmap_srgb.avif")
    /// A Samsung Galaxy S25 Ultra HEIC: a 4000×1848 grid (item 33), its map a 1000×462 grid of two
    /// HEVC tiles (item 37) coded as YCbCr with neutral chroma, the `tmap` item 38 with an `irot` of 0°.
    public static let samsung = Fixtures.root.appendingPathComponent("corpus/pillow_heif/aux_YCbCr.heic")

    /// Ways to break `avif`'s `tmap`.
    public enum Hostile: String, CaseIterable, Sendable {
        /// The map's reference names an item the file does not have.
        case dangling
        /// The map is the primary image (libheif refuses an iref that names an item twice).
        case mapIsThePrimary
        /// The map is the `tmap` item itself.
        case mapIsItself
        /// The base is the map, not the primary: the `tmap` is no gain map of the picture.
        case notForThePrimary
        /// `samsung` with its map's `ispe` claiming 9216×462, more than twice the picture's width.
        case absurdSize
        /// `samsung` with its `tmap`'s `irot` of 0° made 90°: its HDR picture would be turned.
        case tmapTurned
        /// The `tmap` item's data (its `iloc` extent) lies past the end of the file.
        case dataOutsideTheFile
    }

    public static func bytes(_ variant: Hostile) throws -> [UInt8] {
        if variant == .tmapTurned {
            var bytes = try Fixtures.bytes(of: samsung)
            // The file's one irot box (the tmap's): size 9, then its angle in quarter turns.
            bytes[try index(of: [0, 0, 0, 9] + Array("irot".utf8), in: bytes) + 8] = 1
            return bytes
        }
        if variant == .absurdSize {
            var bytes = try Fixtures.bytes(of: samsung)
            // ispe: version and flags, then width and height (1000×462) as 32-bit big-endian.
            let at = try index(of: [0x69, 0x73, 0x70, 0x65, 0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0, 0, 0x01, 0xCE], in: bytes)
            bytes[at + 10] = 0x24
            bytes[at + 11] = 0x00
            return bytes
        }
        var bytes = try Fixtures.bytes(of: avif)
        // iref's dimg from item 2: two references, items 1 and 3 (16-bit ids).
        let at = try index(of: Array("dimg".utf8) + [0, 2, 0, 2, 0, 1, 0, 3], in: bytes) + 8
        switch variant {
        case .dangling: bytes[at + 3] = 9
        case .mapIsThePrimary: bytes[at + 3] = 1
        case .mapIsItself: bytes[at + 3] = 2
        case .notForThePrimary: (bytes[at + 1], bytes[at + 3]) = (3, 1)
        case .dataOutsideTheFile:
            // iloc's entry for item 2: no data reference index, one extent at 0x1FA5F of 142 bytes.
            let entry = try index(of: [0, 2, 0, 0, 0, 1, 0, 1, 0xFA, 0x5F, 0, 0, 0, 0x8E], in: bytes)
            bytes.replaceSubrange((entry + 6)..<(entry + 10), with: [0, 0xFF, 0xFF, 0xFF])
        case .absurdSize, .tmapTurned: break
        }
        return bytes
    }

    private static func index(of needle: [UInt8], in bytes: [UInt8]) throws -> Int {
        guard
            let at = (0...(bytes.count - needle.count)).first(where: {
                bytes[$0..<($0 + needle.count)].elementsEqual(needle)
            })
        else { throw CocoaError(.fileReadCorruptFile) }
        return at
    }
}
