/// An ICC display profile equivalent to an nclx colour description, to embed in a render.
///
/// **The path darkroom takes for nclx originals: embed, don't convert.** The render keeps the
/// original's RGB values and declares them with this profile, exactly as it carries an original's
/// own ICC profile. Converting the pixels to sRGB instead would clip every colour outside sRGB
/// (the reds and greens Display P3 exists for) and round the values a second time; embedding costs
/// a few kilobytes and no per-pixel work, and a colour-managed viewer shows the original's colours.
/// A viewer without colour management shows the values as sRGB, as it does the iPhone's own JPEGs.
///
/// **ICC v2.1, with sampled curves.** Every colour-managed reader handles a v2 matrix/TRC profile;
/// some still treat v4 as optional (Firefox's qcms keeps its v4 support behind a switch that is off
/// by default). v2 has no parametric curves, so each TRC is a 1024-point `curv` (the size of the classic
/// sRGB profile's), within 2·10⁻⁵ of the formula; the three channels share one curve element. Like
/// that profile and Apple's Display P3, `wtpt` holds the space's own white (D65 for sRGB/P3/BT.2020)
/// and the colorants are adapted to the D50 PCS with the Bradford transform, which `chad` records.
/// The v2 header has no profile ID (bytes 84–99 stay zero: the MD5 ID is v4's) and a fixed creation
/// date, so the same description always gives the same bytes.
///
/// HDR transfers (PQ, HLG) have no SDR matrix/TRC equivalent: they are refused, not approximated.
public struct ICCProfile: Sendable, Hashable {
    /// The whole profile, ready for the JPEG's APP2 `ICC_PROFILE` segments.
    public let bytes: [UInt8]
    /// The `desc` text, e.g. "Display P3".
    public let name: String

    /// The profile for an nclx description. Check `description.isSRGB` first: an sRGB render needs none.
    public init(for description: ColorDescription) throws(ICCProfileError) {
        guard let curve = description.transfer.curve else {
            throw description.transfer.isHighDynamicRange
                ? .highDynamicRange(description.transfer) : .unsupportedTransfer(description.transfer)
        }
        guard let primaries = description.primaries.rgbPrimaries else {
            throw .unsupportedPrimaries(description.primaries)
        }
        try self.init(primaries: primaries, curve: curve)
    }

    /// A profile for explicit chromaticities (a decoder may report them beside the code points).
    public init(primaries: RGBPrimaries, transfer: TransferCharacteristics) throws(ICCProfileError) {
        guard let curve = transfer.curve else {
            throw transfer.isHighDynamicRange ? .highDynamicRange(transfer) : .unsupportedTransfer(transfer)
        }
        try self.init(primaries: primaries, curve: curve)
    }

    init(primaries: RGBPrimaries, curve: TransferCurve) throws(ICCProfileError) {
        guard let toXYZ = primaries.toXYZ else { throw .invalidPrimaries(primaries) }
        let white = primaries.white.xyz
        let adaptation = Matrix3.bradford(from: white, to: Self.pcsWhite)
        let colorants = adaptation * toXYZ
        let numbers = [white] + colorants.rows + adaptation.rows
        guard numbers.allSatisfy({ ($0.min() > -32_768) && ($0.max() < 32_767) }) else {
            throw .invalidPrimaries(primaries)  // also catches NaN, which fails both comparisons
        }
        name = curve == .sRGB ? primaries.name : "\(primaries.name), \(curve.name)"
        bytes = Self.serialise(tags: [
            (["desc"], Self.textDescription(name)),
            (["cprt"], Self.text("No copyright, use freely")),
            (["wtpt"], Self.xyz(white)),
            (["rXYZ"], Self.xyz(colorants.column(0))),
            (["gXYZ"], Self.xyz(colorants.column(1))),
            (["bXYZ"], Self.xyz(colorants.column(2))),
            (["rTRC", "gTRC", "bTRC"], Self.sampledCurve(curve)),
            (["chad"], Self.s15Fixed16Array(adaptation.rows)),
        ])
    }

    /// The PCS illuminant as ICC defines it (D50, as the header encodes it).
    static let pcsWhite = SIMD3<Double>(0.9642, 1, 0.8249)
    static let curveSamples = 1024
    static let headerSize = 128

    /// Header, tag table, then each element 4-byte aligned; tags listed together share one element.
    private static func serialise(tags: [(signatures: [String], element: [UInt8])]) -> [UInt8] {
        let tagCount = tags.reduce(0) { $0 + $1.signatures.count }
        var table = ByteWriter()
        var data = ByteWriter()
        let dataStart = headerSize + 4 + 12 * tagCount
        table.u32(tagCount)
        for (signatures, element) in tags {
            for signature in signatures {
                table.ascii(signature)
                table.u32(dataStart + data.bytes.count)
                table.u32(element.count)
            }
            data.bytes += element
            data.padToFour()
        }
        var header = ByteWriter()
        header.u32(dataStart + data.bytes.count)
        header.u32(0)  // preferred CMM: none
        header.u32(0x0210_0000)  // version 2.1.0
        header.ascii("mntr")
        header.ascii("RGB ")
        header.ascii("XYZ ")
        for part in [2026, 1, 1, 0, 0, 0] { header.u16(part) }
        header.ascii("acsp")
        header.zeros(4 + 4 + 4 + 4 + 8 + 4)  // platform, flags, maker, model, attributes, perceptual intent
        header.s15Fixed16(pcsWhite)
        header.zeros(4 + 16 + 28)  // creator, profile ID (none in v2), reserved
        return header.bytes + table.bytes + data.bytes
    }

    private static func xyz(_ value: SIMD3<Double>) -> [UInt8] {
        var element = ByteWriter(type: "XYZ ")
        element.s15Fixed16(value)
        return element.bytes
    }

    private static func s15Fixed16Array(_ rows: [SIMD3<Double>]) -> [UInt8] {
        var element = ByteWriter(type: "sf32")
        for row in rows { element.s15Fixed16(row) }
        return element.bytes
    }

    private static func sampledCurve(_ curve: TransferCurve) -> [UInt8] {
        var element = ByteWriter(type: "curv")
        element.u32(curveSamples)
        for index in 0..<curveSamples {
            let light = curve.linearLight(Double(index) / Double(curveSamples - 1))
            element.u16(Int((min(max(light, 0), 1) * 65535).rounded()))
        }
        return element.bytes
    }

    /// v2 `textDescriptionType`: ASCII only, empty Unicode and ScriptCode parts.
    private static func textDescription(_ text: String) -> [UInt8] {
        var element = ByteWriter(type: "desc")
        let ascii = asciiBytes(text)
        element.u32(ascii.count)
        element.bytes += ascii
        element.zeros(4 + 4 + 2 + 1 + 67)  // Unicode language, count; ScriptCode code, count, text
        return element.bytes
    }

    private static func text(_ text: String) -> [UInt8] {
        var element = ByteWriter(type: "text")
        element.bytes += asciiBytes(text)
        return element.bytes
    }

    /// NUL-terminated; anything outside ASCII becomes "?".
    private static func asciiBytes(_ text: String) -> [UInt8] {
        text.unicodeScalars.map { $0.isASCII ? UInt8($0.value) : UInt8(ascii: "?") } + [0]
    }
}

/// Why no profile was built. The caller decides what to do (refuse, or render untagged with a warning).
public struct ICCProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// PQ or HLG: brighter-than-white light that an SDR JPEG profile cannot describe.
        case highDynamicRange = "icc_hdr_transfer"
        case unsupportedTransfer = "icc_unsupported_transfer"
        case unsupportedPrimaries = "icc_unsupported_primaries"
        /// Chromaticities that do not span a colour space (a y of 0, collinear primaries, white outside).
        case invalidPrimaries = "icc_invalid_primaries"
    }

    public var code: Code
    /// What was refused and what to do instead.
    public var message: String
    /// The refused nclx transfer or primaries, or chromaticities, as the code concerns.
    public var transfer: TransferCharacteristics?
    public var primaries: ColorPrimaries?
    public var chromaticities: RGBPrimaries?

    public var description: String { message }

    public static func highDynamicRange(_ transfer: TransferCharacteristics) -> ICCProfileError {
        ICCProfileError(
            code: .highDynamicRange,
            message: "transfer characteristics \(transfer.rawValue) (\(transfer)) is HDR; darkroom renders SDR JPEGs "
                + "and does not tone-map: export the original as SDR (sRGB or Display P3)",
            transfer: transfer)
    }

    public static func unsupportedTransfer(_ transfer: TransferCharacteristics) -> ICCProfileError {
        ICCProfileError(
            code: .unsupportedTransfer,
            message: "transfer characteristics \(transfer.rawValue) (\(transfer)) has no ICC curve in darkroom; "
                + "supported: 1, 2, 4, 5, 6, 8, 13, 14, 15",
            transfer: transfer)
    }

    public static func unsupportedPrimaries(_ primaries: ColorPrimaries) -> ICCProfileError {
        ICCProfileError(
            code: .unsupportedPrimaries,
            message: "colour primaries \(primaries.rawValue) (\(primaries)) have no ICC profile in darkroom; "
                + "supported: 1, 2, 5, 6, 7, 9, 11, 12",
            primaries: primaries)
    }

    public static func invalidPrimaries(_ chromaticities: RGBPrimaries) -> ICCProfileError {
        ICCProfileError(
            code: .invalidPrimaries,
            message: "the chromaticities of \"\(chromaticities.name)\" (red \(chromaticities.red), green "
                + "\(chromaticities.green), blue \(chromaticities.blue), white \(chromaticities.white)) do not "
                + "form an RGB colour space",
            chromaticities: chromaticities)
    }
}

/// Big-endian bytes, as ICC stores every number.
private struct ByteWriter {
    var bytes: [UInt8] = []

    init() {}

    /// An element: its type signature and four reserved bytes.
    init(type: String) {
        ascii(type)
        zeros(4)
    }

    mutating func ascii(_ signature: String) { bytes += Array(signature.utf8) }
    mutating func zeros(_ count: Int) { bytes += repeatElement(0, count: count) }
    mutating func u16(_ value: Int) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).bigEndian) { bytes += $0 } }

    mutating func s15Fixed16(_ value: SIMD3<Double>) {
        for index in 0..<3 {
            withUnsafeBytes(of: Int32((value[index] * 65536).rounded()).bigEndian) { bytes += $0 }
        }
    }

    mutating func padToFour() { zeros((4 - bytes.count % 4) % 4) }
}
