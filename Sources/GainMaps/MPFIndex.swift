/// The Multi-Picture Format index (CIPA DC-007) of a JPEG APP2 segment: which images the file
/// holds after its primary one, how long each is and where it starts. Offsets are relative to
/// the MP header (the byte-order mark just after "MPF\0"); the first image's is 0.
public struct MPFIndex: Sendable, Equatable {
    public struct Image: Sendable, Equatable {
        /// The attribute word: flags (bits 31–27), format (26–24, 0 for JPEG), type (23–0).
        public var attribute: UInt32
        public var size: UInt32
        /// From the MP header; 0 for the first image.
        public var offset: UInt32
        public var dependent1: UInt16
        public var dependent2: UInt16

        /// Type code of a baseline primary image.
        public static let baselinePrimary: UInt32 = 0x03_0000

        public init(attribute: UInt32, size: UInt32, offset: UInt32, dependent1: UInt16 = 0, dependent2: UInt16 = 0) {
            self.attribute = attribute
            self.size = size
            self.offset = offset
            self.dependent1 = dependent1
            self.dependent2 = dependent2
        }

        public var type: UInt32 { attribute & 0xFF_FFFF }
        /// 0: JPEG.
        public var format: UInt32 { attribute >> 24 & 0x7 }
    }

    /// The APP2 payload's signature.
    public static let signature: [UInt8] = Array("MPF".utf8) + [0]
    /// More images than any camera or gain-map writer puts in one file.
    public static let maxImages = 64

    public var images: [Image]
    public var bigEndian: Bool

    public init(images: [Image], bigEndian: Bool = true) {
        self.images = images
        self.bigEndian = bigEndian
    }

    /// Reads an APP2 payload that starts with "MPF\0".
    public init(app2Payload payload: [UInt8]) throws(GainMapError) {
        guard payload.starts(with: Self.signature) else {
            throw GainMapError(.malformed, .mpfIndex, "the APP2 payload does not start with MPF\\0", at: 0)
        }
        let tiff = Array(payload.dropFirst(Self.signature.count))
        guard tiff.count >= 8 else { throw GainMapError(.cut, .mpfIndex, "no room for the MP header", at: 4) }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: throw GainMapError(.malformed, .mpfIndex, "the MP header has no byte-order mark (MM or II)", at: 4)
        }
        guard try ByteReader.u16(tiff, at: 2, bigEndian: bigEndian, structure: .mpfIndex) == 42 else {
            throw GainMapError(.malformed, .mpfIndex, "the MP header's TIFF mark is not 42", at: 6)
        }
        let ifdOffset = try ByteReader.u32(tiff, at: 4, bigEndian: bigEndian, structure: .mpfIndex)
        guard ifdOffset >= 8, ifdOffset < tiff.count else {
            throw GainMapError(.inconsistent, .mpfIndex, "the index IFD's offset \(ifdOffset) is outside the index")
        }
        let ifd = try TIFFDirectory(tiff, base: 0, offset: ifdOffset, bigEndian: bigEndian, structure: .mpfIndex)
        guard let version = ifd.entry(0xB000) else {
            throw GainMapError(.malformed, .mpfIndex, "no MPFVersion tag")
        }
        let versionBytes = tiff[
            try TIFFDirectory.valueRange(of: version, in: tiff, base: 0, bigEndian: bigEndian, structure: .mpfIndex)]
        guard Array(versionBytes) == Array("0100".utf8) else {
            throw GainMapError(.unsupported, .mpfIndex, "MPF version \(Array(versionBytes)), not 0100")
        }
        guard let number = ifd.entry(0xB001), number.count == 1, number.type == 4 else {
            throw GainMapError(.malformed, .mpfIndex, "no NumberOfImages tag of one LONG")
        }
        let count = try ByteReader.u32(tiff, at: number.valueFieldOffset, bigEndian: bigEndian, structure: .mpfIndex)
        guard count >= 1, count <= Self.maxImages else {
            throw GainMapError(.tooLarge, .mpfIndex, "\(count) images (darkroom reads 1 to \(Self.maxImages))")
        }
        guard let entries = ifd.entry(0xB002), entries.type == 7 else {
            throw GainMapError(.malformed, .mpfIndex, "no MPEntry tag")
        }
        guard entries.count == count * 16 else {
            throw GainMapError(
                .inconsistent, .mpfIndex, "MPEntry holds \(entries.count) bytes, not 16 for each of \(count) images")
        }
        let range = try TIFFDirectory.valueRange(
            of: entries, in: tiff, base: 0, bigEndian: bigEndian, structure: .mpfIndex)
        var reader = ByteReader(tiff, structure: .mpfIndex, bigEndian: bigEndian, offset: range.lowerBound)
        var images: [Image] = []
        for _ in 0..<count {
            let attribute = try reader.u32()
            let size = try reader.u32()
            let offset = try reader.u32()
            images.append(
                Image(
                    attribute: attribute, size: size, offset: offset, dependent1: try reader.u16(),
                    dependent2: try reader.u16()))
        }
        guard images[0].offset == 0 else {
            throw GainMapError(.inconsistent, .mpfIndex, "the first image's offset is \(images[0].offset), not 0")
        }
        self.images = images
        self.bigEndian = bigEndian
    }

    /// Bytes of the APP2 payload `encoded()` writes for `imageCount` images.
    public static func encodedLength(imageCount: Int) -> Int { signature.count + 8 + 2 + 3 * 12 + 4 + 16 * imageCount }

    /// The APP2 payload: "MPF\0", the MP header, an index IFD with the version, the number of
    /// images and their entries (no attribute IFD).
    public func encoded() -> [UInt8] {
        var writer = ByteWriter(bigEndian: bigEndian)
        writer.bytes = Self.signature
        writer.bytes += bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        writer.u16(42)
        writer.u32(8)
        writer.u16(3)
        writer.u16(0xB000)
        writer.u16(7)
        writer.u32(4)
        writer.bytes += Array("0100".utf8)
        writer.u16(0xB001)
        writer.u16(4)
        writer.u32(1)
        writer.u32(UInt32(images.count))
        writer.u16(0xB002)
        writer.u16(7)
        writer.u32(UInt32(16 * images.count))
        // The entries follow the IFD and its next-IFD offset: 8 + 2 + 36 + 4 from the MP header.
        writer.u32(50)
        writer.u32(0)
        for image in images {
            writer.u32(image.attribute)
            writer.u32(image.size)
            writer.u32(image.offset)
            writer.u16(image.dependent1)
            writer.u16(image.dependent2)
        }
        return writer.bytes
    }
}
