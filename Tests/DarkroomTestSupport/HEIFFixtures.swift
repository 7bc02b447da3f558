import Foundation
import LibHeif

/// HEIF and AVIF test inputs: the bundled iPhone photo, and files made at test time with
/// libheif's encoder (`HEIFEncoder`), which writes `irot`/`imir`, EXIF, ICC and nclx as asked.
public enum HEIFFixtures {
    /// A real iPhone 8 Plus HEIC: an 8×6 grid of 512² HEVC tiles, 4032×3024 coded, `irot` 270
    /// and EXIF Orientation 6 (so 3024×4032 displayed), a Display P3 ICC profile.
    /// See Tests/Fixtures/heif/README.md for where it comes from and its licence.
    public static let arrow = Fixtures.root.appendingPathComponent("heif/arrow.heic")

    /// libheif's own decode of `arrow` (heif-convert 1.15.1), as mean luma over 32 × 24 blocks
    /// of 126 × 126 pixels (a binary PGM, 24 wide and 32 high): see the README for the command.
    public static let arrowReference = Fixtures.root.appendingPathComponent("heif/arrow-luma-24x32.pgm")

    /// The colours of `quadrants`: top left, top right, bottom left, bottom right. Far apart,
    /// so lossy coding never confuses them, and each corner different, so every turn and
    /// mirror of the picture shows a different arrangement.
    public static let quadrantColors: [[UInt8]] = [[220, 40, 40], [40, 200, 60], [50, 70, 220], [235, 225, 60]]

    /// An upright picture of four flat quadrants, `width * 3` bytes a row.
    public static func quadrants(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let color = quadrantColors[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
                pixels.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: color)
            }
        }
        return pixels
    }

    /// The quadrants of `image` whose middle is not the colour `quadrants` put there (within
    /// lossy-coding noise), described; empty when the picture stands as drawn.
    public static func misplacedQuadrants(in image: DecodedImage, tolerance: Int = 16) -> [String] {
        let (w, h) = (image.width, image.height)
        return [(w / 4, h / 4), (3 * w / 4, h / 4), (w / 4, 3 * h / 4), (3 * w / 4, 3 * h / 4)].enumerated().compactMap
        { index, point in
            let pixel = image.pixel(point.0, point.1)
            let expected = quadrantColors[index]
            let matches = zip(pixel, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
            return matches ? nil : "quadrant \(index) is \(pixel), not \(expected)"
        }
    }

    /// An EXIF block (APP1 payload) as phones write into a HEIF: orientation, and optionally GPS
    /// and a date with its offset.
    public static func exif(
        orientation: Int, bigEndian: Bool = true, gps: Bool = false, date: String? = nil,
        offset: String? = nil
    ) -> [UInt8] {
        var exif = SyntheticExif(bigEndian: bigEndian)
        exif.ifd0 = [exif.ascii(0x010f, "Apple"), exif.short(0x0112, UInt16(orientation))]
        if let date {
            exif.exif = [exif.ascii(0x9003, date)]
            if let offset { exif.exif.append(exif.ascii(0x9011, offset)) }
        }
        if gps {
            // 33° 51' 54.36" S, 151° 12' 40.2" E, 12.5 m below sea level.
            exif.gps = [
                exif.ascii(0x0001, "S"), exif.rationals(0x0002, (33, 1), (51, 1), (5436, 100)),
                exif.ascii(0x0003, "E"), exif.rationals(0x0004, (151, 1), (12, 1), (402, 10)),
                exif.byte(0x0005, 1), exif.rationals(0x0006, (125, 10)),
            ]
        }
        return exif.payload
    }

    /// Whether an ICC profile's description is Apple's "Display P3" (as `arrow`'s is).
    public static func describesDisplayP3(_ profile: [UInt8]) -> Bool {
        let name = Array("Display P3".utf8)
        return profile[36..<40].elementsEqual("acsp".utf8)
            && profile.indices.contains { profile[$0...].starts(with: name) }
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// Edits of HEIF files for bad-input tests. Boxes are found by walking the box tree from the
/// top (`ftyp`, `meta` and its children), never by searching the coded data.
public enum ISOBMFFEdit {
    public struct Box {
        public var type: String
        /// Offset of the box's size field, and of its first byte after the header.
        public var start: Int
        public var contentStart: Int
        public var end: Int
    }

    /// The boxes directly inside `range` of `bytes`.
    public static func boxes(in bytes: [UInt8], from start: Int = 0, to end: Int? = nil) -> [Box] {
        var boxes: [Box] = []
        var offset = start
        let end = end ?? bytes.count
        while offset + 8 <= end {
            var size = Int(uint32(bytes, offset))
            var header = 8
            if size == 1 {
                size = Int(uint32(bytes, offset + 8)) << 32 | Int(uint32(bytes, offset + 12))
                header = 16
            } else if size == 0 {
                size = end - offset
            }
            guard size >= header else { break }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            boxes.append(Box(type: type, start: offset, contentStart: offset + header, end: min(offset + size, end)))
            offset += size
        }
        return boxes
    }

    /// The box at `path` (e.g. ["meta", "iprp", "ipco", "ispe"]); the first of each type.
    public static func box(_ path: [String], in bytes: [UInt8]) -> Box? {
        var candidates = boxes(in: bytes)
        var found: Box?
        for (depth, type) in path.enumerated() {
            guard let box = candidates.first(where: { $0.type == type }) else { return nil }
            found = box
            if depth < path.count - 1 {
                candidates = boxes(in: bytes, from: childrenStart(of: box, in: bytes), to: box.end)
            }
        }
        return found
    }

    /// Where a container's children start: `meta` is a full box (version and flags first),
    /// `iinf` a full box with an entry count; `iprp` and `ipco` hold boxes only.
    private static func childrenStart(of box: Box, in bytes: [UInt8]) -> Int {
        switch box.type {
        case "meta": box.contentStart + 4
        case "iinf": box.contentStart + 4 + (bytes[box.contentStart] == 0 ? 2 : 4)
        default: box.contentStart
        }
    }

    /// Sets the size every `ispe` box claims (the image's coded width and height).
    public static func settingImageSize(_ bytes: [UInt8], width: UInt32, height: UInt32) -> [UInt8] {
        var edited = bytes
        guard let ipco = box(["meta", "iprp", "ipco"], in: bytes) else { return edited }
        for ispe in boxes(in: bytes, from: ipco.contentStart, to: ipco.end) where ispe.type == "ispe" {
            put(width, into: &edited, at: ispe.contentStart + 4)
            put(height, into: &edited, at: ispe.contentStart + 8)
        }
        return edited
    }

    /// Points `pitm` (the primary item) at another item, e.g. the Exif one: a file with no image.
    public static func settingPrimaryItem(_ bytes: [UInt8], to item: UInt16) -> [UInt8] {
        var edited = bytes
        guard let pitm = box(["meta", "pitm"], in: bytes), bytes[pitm.contentStart] == 0 else { return edited }
        edited[pitm.contentStart + 4] = UInt8(item >> 8)
        edited[pitm.contentStart + 5] = UInt8(truncatingIfNeeded: item)
        return edited
    }

    /// The ID of the first item of `type` ("Exif", "hvc1", "grid") in `iinf`.
    public static func itemID(ofType type: String, in bytes: [UInt8]) -> UInt16? {
        guard let iinf = box(["meta", "iinf"], in: bytes) else { return nil }
        for infe in boxes(in: bytes, from: childrenStart(of: iinf, in: bytes), to: iinf.end)
        where infe.type == "infe" && bytes[infe.contentStart] >= 2 {
            // version 2: item_ID (16), protection index (16), item type (4 characters).
            let id = UInt16(bytes[infe.contentStart + 4]) << 8 | UInt16(bytes[infe.contentStart + 5])
            if String(decoding: bytes[(infe.contentStart + 8)..<(infe.contentStart + 12)], as: UTF8.self) == type {
                return id
            }
        }
        return nil
    }

    /// Moves the first extent of the item whose data lies last in the file to beyond its end,
    /// as a file whose tail was lost would describe it: `iloc` points outside the file.
    public static func pointingLastExtentOutside(_ bytes: [UInt8]) -> [UInt8] {
        var edited = bytes
        guard let iloc = box(["meta", "iloc"], in: bytes) else { return edited }
        var at = iloc.contentStart
        let version = bytes[at]
        at += 4
        let offsetSize = Int(bytes[at] >> 4)
        let lengthSize = Int(bytes[at] & 15)
        let baseOffsetSize = Int(bytes[at + 1] >> 4)
        let indexSize = version >= 1 ? Int(bytes[at + 1] & 15) : 0
        at += 2
        let itemCount: Int
        if version < 2 {
            itemCount = Int(uint16(bytes, at))
            at += 2
        } else {
            itemCount = Int(uint32(bytes, at))
            at += 4
        }
        var last: (field: Int, offset: Int)?
        for _ in 0..<itemCount {
            at += version < 2 ? 2 : 4  // item_ID
            var constructionMethod = 0
            if version >= 1 {
                constructionMethod = Int(bytes[at + 1] & 15)
                at += 2
            }
            at += 2  // data_reference_index
            let base = read(bytes, at, size: baseOffsetSize)
            at += baseOffsetSize
            let extents = Int(uint16(bytes, at))
            at += 2
            for extent in 0..<extents {
                at += indexSize
                let offset = base + read(bytes, at, size: offsetSize)
                if extent == 0, constructionMethod == 0, offsetSize == 4, offset > (last?.offset ?? -1) {
                    last = (at, offset)
                }
                at += offsetSize + lengthSize
            }
        }
        if let last { put(UInt32(bytes.count + 4096), into: &edited, at: last.field) }
        return edited
    }

    private static func read(_ bytes: [UInt8], _ at: Int, size: Int) -> Int {
        (0..<size).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
    }

    private static func uint16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }

    private static func put(_ value: UInt32, into bytes: inout [UInt8], at index: Int) {
        for byte in 0..<4 { bytes[index + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
    }
}
