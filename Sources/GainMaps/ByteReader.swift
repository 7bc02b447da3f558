/// Reads integers from a byte array, never past its end: every read that would is a `.cut`
/// error naming the structure and the offset.
struct ByteReader {
    let bytes: [UInt8]
    let structure: GainMapError.Structure
    var bigEndian: Bool
    var offset: Int

    init(_ bytes: [UInt8], structure: GainMapError.Structure, bigEndian: Bool = true, offset: Int = 0) {
        self.bytes = bytes
        self.structure = structure
        self.bigEndian = bigEndian
        self.offset = offset
    }

    var remaining: Int { max(0, bytes.count - offset) }

    mutating func u8() throws(GainMapError) -> UInt8 {
        guard offset >= 0, offset < bytes.count else { throw cut(1) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(GainMapError) -> UInt16 {
        let value = try Self.u16(bytes, at: offset, bigEndian: bigEndian, structure: structure)
        offset += 2
        return value
    }

    mutating func u32() throws(GainMapError) -> UInt32 {
        let value = try Self.u32(bytes, at: offset, bigEndian: bigEndian, structure: structure)
        offset += 4
        return value
    }

    mutating func i32() throws(GainMapError) -> Int32 { Int32(bitPattern: try u32()) }

    private func cut(_ count: Int) -> GainMapError {
        GainMapError(.cut, structure, "\(count) byte(s) needed, \(remaining) left", at: offset)
    }

    static func u16(_ bytes: [UInt8], at offset: Int, bigEndian: Bool, structure: GainMapError.Structure)
        throws(GainMapError) -> UInt16
    {
        guard offset >= 0, offset <= bytes.count - 2 else {
            throw GainMapError(.cut, structure, "a 2-byte value runs past the end", at: offset)
        }
        let (a, b) = (UInt16(bytes[offset]), UInt16(bytes[offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    static func u32(_ bytes: [UInt8], at offset: Int, bigEndian: Bool, structure: GainMapError.Structure)
        throws(GainMapError) -> UInt32
    {
        guard offset >= 0, offset <= bytes.count - 4 else {
            throw GainMapError(.cut, structure, "a 4-byte value runs past the end", at: offset)
        }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[offset + (bigEndian ? index : 3 - index)])
            value = value << 8 | byte
        }
        return value
    }
}

/// Appends big- or little-endian integers.
struct ByteWriter {
    var bytes: [UInt8] = []
    var bigEndian = true

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        let pair = [UInt8(value >> 8), UInt8(value & 0xFF)]
        bytes += bigEndian ? pair : pair.reversed()
    }

    mutating func u32(_ value: UInt32) {
        let four = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        bytes += bigEndian ? four : four.reversed()
    }

    mutating func i32(_ value: Int32) { u32(UInt32(bitPattern: value)) }
}
