import Testing

/// A tiny ICC reader for the tests: checks the layout while it reads (sizes, offsets, alignment,
/// signature) and decodes the few element types darkroom writes.
struct ICCProfileReader {
    let bytes: [UInt8]
    /// Tag signature → (offset, size) as the tag table says.
    let tags: [String: (offset: Int, size: Int)]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        try #require(bytes.count >= 132, "shorter than a header and a tag count")
        let reader = Bytes(bytes)
        #expect(reader.u32(0) == bytes.count, "the size field is the profile's length")
        #expect(reader.ascii(36) == "acsp", "profile file signature")
        let count = reader.u32(128)
        let dataStart = 132 + 12 * count
        try #require(dataStart <= bytes.count, "the tag table runs past the end")
        var tags: [String: (offset: Int, size: Int)] = [:]
        for index in 0..<count {
            let entry = 132 + 12 * index
            let (signature, offset, size) = (reader.ascii(entry), reader.u32(entry + 4), reader.u32(entry + 8))
            #expect(offset % 4 == 0, "\(signature) starts at \(offset), not 4-byte aligned")
            #expect(
                offset >= dataStart && offset + size <= bytes.count,
                "\(signature) at \(offset)+\(size) is outside the data")
            #expect(tags[signature] == nil, "\(signature) listed twice")
            tags[signature] = (offset, size)
        }
        self.tags = tags
    }

    var version: Int { Bytes(bytes).u32(8) }
    func header(_ offset: Int) -> String { Bytes(bytes).ascii(offset) }

    /// The element's type signature.
    func type(of tag: String) throws -> String {
        let entry = try #require(tags[tag], "no \(tag) tag")
        return Bytes(bytes).ascii(entry.offset)
    }

    func xyz(_ tag: String) throws -> SIMD3<Double> {
        try #require(try type(of: tag) == "XYZ ")
        let offset = tags[tag]!.offset + 8
        return SIMD3((0..<3).map { Bytes(bytes).s15Fixed16(offset + 4 * $0) })
    }

    /// `sf32` as nine numbers, rows first.
    func s15Fixed16Array(_ tag: String) throws -> [Double] {
        try #require(try type(of: tag) == "sf32")
        let entry = tags[tag]!
        return (0..<(entry.size - 8) / 4).map { Bytes(bytes).s15Fixed16(entry.offset + 8 + 4 * $0) }
    }

    /// A sampled `curv`, evaluated by linear interpolation as ICC prescribes.
    func sampledCurve(_ tag: String) throws -> (Double) -> Double {
        try #require(try type(of: tag) == "curv")
        let entry = tags[tag]!
        let reader = Bytes(bytes)
        let count = reader.u32(entry.offset + 8)
        try #require(
            count > 1 && entry.size == 12 + 2 * count, "a sampled curve of \(count) points in \(entry.size) bytes")
        let samples = (0..<count).map { Double(reader.u16(entry.offset + 12 + 2 * $0)) / 65535 }
        return { encoded in
            let position = min(max(encoded, 0), 1) * Double(count - 1)
            let lower = min(Int(position), count - 2)
            let fraction = position - Double(lower)
            return samples[lower] * (1 - fraction) + samples[lower + 1] * fraction
        }
    }

    /// The ASCII part of a v2 `textDescriptionType`.
    func textDescription(_ tag: String) throws -> String {
        try #require(try type(of: tag) == "desc")
        let entry = tags[tag]!
        let length = Bytes(bytes).u32(entry.offset + 8)
        try #require(length >= 1 && 12 + length <= entry.size)
        let text = bytes[(entry.offset + 12)..<(entry.offset + 12 + length)]
        #expect(text.last == 0, "the ASCII description is NUL-terminated")
        return String(decoding: text.dropLast(), as: UTF8.self)
    }

    private struct Bytes {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
        func ascii(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
        func s15Fixed16(_ at: Int) -> Double { Double(Int32(truncatingIfNeeded: u32(at))) / 65536 }
    }
}
