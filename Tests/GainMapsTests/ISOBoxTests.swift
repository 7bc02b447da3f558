import GainMaps
import Testing

/// The one reader of an ISO BMFF box's header: each way a size is written, and each way it can
/// lie, against the holder it must fit.
@Suite struct ISOBoxTests {
    static func box(_ size: UInt32, _ type: String, largeSize: UInt64? = nil, payload: Int) -> [UInt8] {
        func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            withUnsafeBytes(of: value.bigEndian) { Array($0) }
        }
        return bigEndian(size) + Array(type.utf8) + (largeSize.map(bigEndian) ?? [])
            + [UInt8](repeating: 7, count: payload)
    }

    static func read(_ bytes: [UInt8], at offset: Int = 0, end: Int? = nil) -> ISOBox? {
        bytes.withUnsafeBytes { ISOBox.at(offset, in: $0, end: end ?? bytes.count) }
    }

    @Test func eachWayASizeIsWritten() {
        let file = Self.box(12, "ftyp", payload: 4) + Self.box(1, "mdat", largeSize: 20, payload: 4)
        let first = Self.read(file)
        #expect(first?.type == 0x6674_7970 && first?.payload == 8..<12)
        // A 64-bit size after the type: a 16-byte header.
        let second = Self.read(file, at: first?.end ?? 0)
        #expect(second?.type == 0x6D64_6174 && second?.payload == 28..<32)
        // 0: to the end of what holds it.
        let last = Self.box(0, "moov", payload: 10)
        #expect(Self.read(last)?.type == 0x6D6F_6F76 && Self.read(last)?.payload == 8..<18)
        #expect(Self.read(last, end: 12)?.payload == 8..<12)
    }

    @Test func aSizeThatDoesNotFitItsHolderEndsTheWalk() {
        // Past the holder, smaller than its own header, a 64-bit size past the holder or cut off,
        // a header cut off, an offset outside.
        #expect(Self.read(Self.box(13, "ftyp", payload: 4)) == nil)
        #expect(Self.read(Self.box(12, "ftyp", payload: 4), end: 11) == nil)
        #expect(Self.read(Self.box(7, "ftyp", payload: 4)) == nil)
        #expect(Self.read(Self.box(1, "mdat", largeSize: 15, payload: 4)) == nil)
        #expect(Self.read(Self.box(1, "mdat", largeSize: 21, payload: 4)) == nil)
        #expect(Self.read(Self.box(1, "mdat", largeSize: .max, payload: 4)) == nil)
        #expect(Self.read(Array(Self.box(1, "mdat", largeSize: 20, payload: 0).prefix(12))) == nil)
        #expect(Self.read(Array(Self.box(12, "ftyp", payload: 4).prefix(7))) == nil)
        #expect(Self.read(Self.box(12, "ftyp", payload: 4), at: -1) == nil)
        #expect(Self.read(Self.box(12, "ftyp", payload: 4), end: 13) == nil)
    }
}
