/// An image's colour as ITU-T H.273 code points: what a HEIF/AVIF `colr` box of type `nclx`
/// (or a video bitstream's VUI) says instead of an ICC profile. Independent of any decoder:
/// the HEIF boundary maps its own struct onto this.
///
/// `matrix` and `isFullRange` describe how YCbCr became RGB, which the decoder has already
/// done; only `primaries` and `transfer` describe the RGB that darkroom receives.
public struct ColorDescription: Sendable, Hashable, CustomStringConvertible {
    public var primaries: ColorPrimaries
    public var transfer: TransferCharacteristics
    public var matrix: MatrixCoefficients
    public var isFullRange: Bool

    public init(
        primaries: ColorPrimaries, transfer: TransferCharacteristics,
        matrix: MatrixCoefficients, isFullRange: Bool
    ) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.isFullRange = isFullRange
    }

    /// From the raw numbers a file carries; a reserved number is an error naming the field.
    public init(primaries: Int, transfer: Int, matrix: Int, isFullRange: Bool) throws(ColorDescriptionError) {
        guard let knownPrimaries = ColorPrimaries(rawValue: primaries) else {
            throw .unknownCodePoint(field: "colour_primaries", value: primaries)
        }
        guard let knownTransfer = TransferCharacteristics(rawValue: transfer) else {
            throw .unknownCodePoint(field: "transfer_characteristics", value: transfer)
        }
        guard let knownMatrix = MatrixCoefficients(rawValue: matrix) else {
            throw .unknownCodePoint(field: "matrix_coefficients", value: matrix)
        }
        self.init(primaries: knownPrimaries, transfer: knownTransfer, matrix: knownMatrix, isFullRange: isFullRange)
    }

    /// What an iPhone's Display P3 photo says in nclx form.
    public static let displayP3 = ColorDescription(
        primaries: .displayP3, transfer: .sRGB, matrix: .bt601, isFullRange: true)

    /// The RGB is already what a JPEG without a profile means (sRGB), so nothing need be embedded.
    /// "Unspecified" counts as sRGB, the default every viewer assumes.
    public var isSRGB: Bool {
        (primaries == .bt709 || primaries == .unspecified) && (transfer == .sRGB || transfer == .unspecified)
    }

    public var description: String {
        "nclx \(primaries.rawValue)/\(transfer.rawValue)/\(matrix.rawValue) \(isFullRange ? "full" : "limited") range"
    }
}

/// An nclx colour description darkroom cannot read.
public struct ColorDescriptionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// A value H.273 reserves: the file is damaged or newer than the standard darkroom knows.
        case unknownCodePoint = "nclx_unknown_code_point"
    }

    public var code: Code
    /// The H.273 field (`colour_primaries`, `transfer_characteristics`, `matrix_coefficients`).
    public var field: String
    public var value: Int

    public var description: String {
        "the nclx colour description has \(field) = \(value), a value ITU-T H.273 reserves; "
            + "the file is damaged or uses a newer standard: re-export it with an ICC profile or an sRGB/Display P3 nclx"
    }

    public static func unknownCodePoint(field: String, value: Int) -> ColorDescriptionError {
        ColorDescriptionError(code: .unknownCodePoint, field: field, value: value)
    }
}

/// H.273 `colour_primaries` (Table 2): every defined code point.
public enum ColorPrimaries: Int, Sendable, Hashable, CaseIterable {
    case bt709 = 1  // also sRGB
    case unspecified = 2
    case bt470M = 4
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case bt601_625 = 5  // BT.470 B/G, PAL
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case bt601_525 = 6  // SMPTE 170M, NTSC
    case smpte240 = 7
    case genericFilm = 8
    case bt2020 = 9
    case xyz = 10  // SMPTE ST 428-1
    case dciP3 = 11  // SMPTE RP 431-2: P3 primaries, DCI white
    case displayP3 = 12  // SMPTE EG 432-1: P3 primaries, D65 white
    case ebu3213 = 22
}

/// H.273 `transfer_characteristics` (Table 3): every defined code point.
public enum TransferCharacteristics: Int, Sendable, Hashable, CaseIterable {
    case bt709 = 1
    case unspecified = 2
    case gamma22 = 4  // BT.470 M
    case gamma28 = 5  // BT.470 B/G
    case bt601 = 6  // the BT.709 curve
    case smpte240 = 7
    case linear = 8
    case logarithmic100 = 9
    case logarithmic316 = 10
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case iec61966_2_4 = 11  // xvYCC
    case bt1361 = 12
    case sRGB = 13  // IEC 61966-2-1
    case bt2020TenBit = 14  // the BT.709 curve
    case bt2020TwelveBit = 15
    case pq = 16  // SMPTE ST 2084, HDR
    case smpte428 = 17
    case hlg = 18  // ARIB STD-B67, HDR
}

/// H.273 `matrix_coefficients` (Table 4): every defined code point.
public enum MatrixCoefficients: Int, Sendable, Hashable, CaseIterable {
    case identity = 0  // GBR
    case bt709 = 1
    case unspecified = 2
    case fcc = 4
    case bt470BG = 5
    case bt601 = 6
    case smpte240 = 7
    case yCgCo = 8
    case bt2020NonConstant = 9
    case bt2020Constant = 10
    case smpte2085 = 11
    case chromaticityNonConstant = 12
    case chromaticityConstant = 13
    case ictcp = 14
}
