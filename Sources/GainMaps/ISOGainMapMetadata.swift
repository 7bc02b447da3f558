/// ISO 21496-1 gain-map metadata in its binary form: the payload of a JPEG APP2 segment named
/// `urn:iso:std:iso:ts:21496:-1` (after the name), and of a HEIF `tmap` item (after its version
/// byte). Big-endian; every value a fraction (numerator, denominator).
public enum ISOGainMapMetadata {
    /// What a payload holds: only the versions (the primary image of a JPEG says so that its
    /// gain map carries the metadata), or the metadata.
    public enum Payload: Sendable, Equatable {
        case versionOnly(minimumVersion: UInt16, writerVersion: UInt16)
        case metadata(GainMapMetadata, writerVersion: UInt16)
    }

    /// The APP2 segment's name, with its terminating zero.
    public static let jpegNamespace: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]

    static let multichannelFlag: UInt8 = 0x80
    static let baseColorSpaceFlag: UInt8 = 0x40
    static let commonDenominatorFlag: UInt8 = 0x08
    static let backwardDirectionFlag: UInt8 = 0x04

    /// Reads a JPEG APP2 payload that starts with the namespace.
    public static func decode(app2Payload payload: [UInt8]) throws(GainMapError) -> Payload {
        guard payload.starts(with: jpegNamespace) else {
            throw GainMapError(
                .malformed, .iso21496,
                "the APP2 payload is not named \(String(decoding: jpegNamespace.dropLast(), as: UTF8.self))")
        }
        return try decode(Array(payload.dropFirst(jpegNamespace.count)))
    }

    /// Reads a HEIF `tmap` item's data: a version byte (0), then the metadata.
    public static func decode(toneMapItem item: [UInt8]) throws(GainMapError) -> GainMapMetadata {
        guard let version = item.first else { throw GainMapError(.cut, .iso21496, "an empty tmap item", at: 0) }
        guard version == 0 else { throw GainMapError(.unsupported, .iso21496, "tmap version \(version)", at: 0) }
        switch try decode(Array(item.dropFirst())) {
        case .metadata(let metadata, _): return metadata
        case .versionOnly:
            throw GainMapError(.cut, .iso21496, "the tmap item holds versions but no metadata", at: 5)
        }
    }

    /// Reads the metadata from its first byte (minimum_version).
    public static func decode(_ bytes: [UInt8]) throws(GainMapError) -> Payload {
        var reader = ByteReader(bytes, structure: .iso21496)
        let minimumVersion = try reader.u16()
        guard minimumVersion == 0 else {
            throw GainMapError(.unsupported, .iso21496, "minimum_version \(minimumVersion) (darkroom reads 0)", at: 0)
        }
        let writerVersion = try reader.u16()
        if reader.remaining == 0 { return .versionOnly(minimumVersion: minimumVersion, writerVersion: writerVersion) }
        let flags = try reader.u8()
        guard flags & backwardDirectionFlag == 0 else {
            throw GainMapError(.unsupported, .iso21496, "a map in the backward direction", at: 4)
        }
        let channels = flags & multichannelFlag != 0 ? 3 : 1
        var values = [String: SIMD3<Double>]()
        let baseHeadroom: Double
        let alternateHeadroom: Double
        func ratio(_ numerator: Int64, _ denominator: UInt32, _ name: String) throws(GainMapError) -> Double {
            guard denominator != 0 else {
                throw GainMapError(.inconsistent, .iso21496, "\(name) has a zero denominator", at: reader.offset)
            }
            return Double(numerator) / Double(denominator)
        }
        let names = ["min", "max", "gamma", "baseOffset", "alternateOffset"]
        for name in names { values[name] = SIMD3() }
        if flags & commonDenominatorFlag != 0 {
            let denominator = try reader.u32()
            baseHeadroom = try ratio(Int64(try reader.u32()), denominator, "the base headroom")
            alternateHeadroom = try ratio(Int64(try reader.u32()), denominator, "the alternate headroom")
            for channel in 0..<channels {
                values["min"]![channel] = try ratio(Int64(try reader.i32()), denominator, "GainMapMin")
                values["max"]![channel] = try ratio(Int64(try reader.i32()), denominator, "GainMapMax")
                values["gamma"]![channel] = try ratio(Int64(try reader.u32()), denominator, "Gamma")
                values["baseOffset"]![channel] = try ratio(Int64(try reader.i32()), denominator, "the base offset")
                values["alternateOffset"]![channel] = try ratio(
                    Int64(try reader.i32()), denominator, "the alternate offset")
            }
        } else {
            baseHeadroom = try ratio(Int64(try reader.u32()), try reader.u32(), "the base headroom")
            alternateHeadroom = try ratio(Int64(try reader.u32()), try reader.u32(), "the alternate headroom")
            for channel in 0..<channels {
                values["min"]![channel] = try ratio(Int64(try reader.i32()), try reader.u32(), "GainMapMin")
                values["max"]![channel] = try ratio(Int64(try reader.i32()), try reader.u32(), "GainMapMax")
                values["gamma"]![channel] = try ratio(Int64(try reader.u32()), try reader.u32(), "Gamma")
                values["baseOffset"]![channel] = try ratio(Int64(try reader.i32()), try reader.u32(), "the base offset")
                values["alternateOffset"]![channel] = try ratio(
                    Int64(try reader.i32()), try reader.u32(), "the alternate offset")
            }
        }
        // A newer writer may add fields a reader of version 0 skips; a version-0 writer may not.
        guard writerVersion > 0 || reader.remaining == 0 else {
            throw GainMapError(
                .malformed, .iso21496, "\(reader.remaining) byte(s) after the metadata of a version-0 writer",
                at: reader.offset)
        }
        if channels == 1 {
            for name in names { values[name] = SIMD3(repeating: values[name]![0]) }
        }
        let metadata = GainMapMetadata(
            gainMapMin: values["min"]!, gainMapMax: values["max"]!, gamma: values["gamma"]!,
            baseOffset: values["baseOffset"]!, alternateOffset: values["alternateOffset"]!, baseHeadroom: baseHeadroom,
            alternateHeadroom: alternateHeadroom, useBaseColorSpace: flags & baseColorSpaceFlag != 0)
        return .metadata(try metadata.validated(.iso21496), writerVersion: writerVersion)
    }

    /// The metadata as version 0 writes it (each value its own fraction, one channel when the
    /// channels agree); `validated` metadata always encodes. An HDR base is told by its headroom
    /// above the alternate's, as it was read.
    public static func encode(_ metadata: GainMapMetadata) throws(GainMapError) -> [UInt8] {
        var writer = ByteWriter()
        writer.u16(0)
        writer.u16(0)
        let channels = metadata.isMultichannel ? 3 : 1
        writer.u8((channels == 3 ? multichannelFlag : 0) | (metadata.useBaseColorSpace ? baseColorSpaceFlag : 0))
        func unsigned(_ value: Double) throws(GainMapError) {
            let (numerator, denominator) = try fraction(value, signed: false)
            writer.u32(UInt32(numerator))
            writer.u32(denominator)
        }
        func signed(_ value: Double) throws(GainMapError) {
            let (numerator, denominator) = try fraction(value, signed: true)
            writer.i32(Int32(numerator))
            writer.u32(denominator)
        }
        try unsigned(metadata.baseHeadroom)
        try unsigned(metadata.alternateHeadroom)
        for channel in 0..<channels {
            try signed(metadata.gainMapMin[channel])
            try signed(metadata.gainMapMax[channel])
            try unsigned(metadata.gamma[channel])
            try signed(metadata.baseOffset[channel])
            try signed(metadata.alternateOffset[channel])
        }
        return writer.bytes
    }

    /// A HEIF `tmap` item's data.
    public static func encodeToneMapItem(_ metadata: GainMapMetadata) throws(GainMapError) -> [UInt8] {
        [0] + (try encode(metadata))
    }

    /// The closest fraction whose parts fit 32 bits (continued fractions: each convergent is the
    /// best approximation for its denominator).
    static func fraction(_ value: Double, signed: Bool) throws(GainMapError) -> (Int64, UInt32) {
        let limit = signed ? Double(Int32.max) : Double(UInt32.max)
        guard value.isFinite, abs(value) <= limit, signed || value >= 0 else {
            throw GainMapError(.inconsistent, .iso21496, "\(value) has no 32-bit fraction")
        }
        var x = abs(value)
        var (h0, h1, k0, k1) = (0.0, 1.0, 1.0, 0.0)
        for _ in 0..<64 {
            let whole = x.rounded(.down)
            let (h2, k2) = (whole * h1 + h0, whole * k1 + k0)
            if h2 > limit || k2 > Double(UInt32.max) { break }
            (h0, h1, k0, k1) = (h1, h2, k1, k2)
            let rest = x - whole
            if h1 / k1 == abs(value) || rest < 1e-12 { break }
            x = 1 / rest
        }
        guard k1 >= 1 else { throw GainMapError(.inconsistent, .iso21496, "\(value) has no 32-bit fraction") }
        return (Int64(value < 0 ? -h1 : h1), UInt32(k1))
    }
}
