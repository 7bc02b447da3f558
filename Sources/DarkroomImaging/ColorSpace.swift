#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A CIE 1931 xy chromaticity.
public struct Chromaticity: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// XYZ with Y = 1.
    var xyz: SIMD3<Double> { SIMD3(x / y, 1, (1 - x - y) / y) }

    public static let d65 = Chromaticity(x: 0.3127, y: 0.3290)

    public var description: String { "(\(x), \(y))" }
}

/// The three primaries and the white of an RGB space.
public struct RGBPrimaries: Sendable, Hashable {
    public var name: String
    public var red: Chromaticity
    public var green: Chromaticity
    public var blue: Chromaticity
    public var white: Chromaticity

    public init(name: String, red: Chromaticity, green: Chromaticity, blue: Chromaticity, white: Chromaticity) {
        self.name = name
        self.red = red
        self.green = green
        self.blue = blue
        self.white = white
    }

    /// Linear RGB → XYZ relative to this space's own white (white ↦ Y = 1); nil when the
    /// chromaticities cannot span a colour space (a y of 0, or primaries on one line).
    var toXYZ: Matrix3? {
        let chromaticities = [red, green, blue, white]
        guard chromaticities.allSatisfy({ $0.y > 0 && $0.x >= 0 && $0.x + $0.y <= 1 }) else { return nil }
        let primaries = Matrix3(columns: red.xyz, green.xyz, blue.xyz)
        guard let inverse = primaries.inverse else { return nil }
        let scale = inverse * white.xyz
        guard scale.min() > 0 else { return nil }  // the white must lie inside the triangle
        return primaries * Matrix3(diagonal: scale)
    }
}

extension ColorPrimaries {
    /// The H.273 chromaticities darkroom can describe; nil for the rest.
    public var rgbPrimaries: RGBPrimaries? {
        let d65 = Chromaticity.d65
        func xy(_ x: Double, _ y: Double) -> Chromaticity { Chromaticity(x: x, y: y) }
        switch self {
        case .bt709, .unspecified:
            return RGBPrimaries(
                name: "sRGB", red: xy(0.64, 0.33), green: xy(0.30, 0.60), blue: xy(0.15, 0.06), white: d65)
        case .bt601_625:
            return RGBPrimaries(
                name: "BT.601 625", red: xy(0.64, 0.33), green: xy(0.29, 0.60), blue: xy(0.15, 0.06), white: d65)
        case .bt601_525, .smpte240:
            return RGBPrimaries(
                name: "SMPTE C", red: xy(0.630, 0.340), green: xy(0.310, 0.595), blue: xy(0.155, 0.070), white: d65)
        case .bt2020:
            return RGBPrimaries(
                name: "BT.2020", red: xy(0.708, 0.292), green: xy(0.170, 0.797), blue: xy(0.131, 0.046), white: d65)
        case .dciP3:
            return RGBPrimaries(
                name: "DCI-P3", red: xy(0.680, 0.320), green: xy(0.265, 0.690), blue: xy(0.150, 0.060),
                white: xy(0.314, 0.351))
        case .displayP3:
            return RGBPrimaries(
                name: "Display P3", red: xy(0.680, 0.320), green: xy(0.265, 0.690), blue: xy(0.150, 0.060), white: d65)
        case .bt470M, .genericFilm, .xyz, .ebu3213:
            return nil
        }
    }
}

/// How an encoded value in [0, 1] becomes linear light: what an ICC TRC holds (the inverse of
/// the H.273 formula, which goes from light to the encoded value).
enum TransferCurve: Sendable, Hashable {
    case linear
    case power(Double)
    /// Rec. 709's camera curve: V = α·L^0.45 − (α − 1) above β, 4.5·L below.
    case bt709
    case sRGB

    func linearLight(_ encoded: Double) -> Double {
        switch self {
        case .linear:
            return encoded
        case .power(let gamma):
            return pow(encoded, gamma)
        case .bt709:
            let alpha = 1.099_296_826_809_442
            let beta = 0.018_053_968_510_807
            return encoded < 4.5 * beta ? encoded / 4.5 : pow((encoded + alpha - 1) / alpha, 1 / 0.45)
        case .sRGB:
            return SRGB.toLinear(encoded)
        }
    }

    var name: String {
        switch self {
        case .linear: "linear"
        case .power(let gamma): "gamma \(gamma)"
        case .bt709: "BT.709 transfer"
        case .sRGB: "sRGB transfer"
        }
    }
}

extension TransferCharacteristics {
    /// The curve for the SDR transfers darkroom describes; nil for the rest.
    var curve: TransferCurve? {
        switch self {
        case .bt709, .bt601, .bt2020TenBit, .bt2020TwelveBit: .bt709
        case .sRGB, .unspecified: .sRGB
        case .linear: .linear
        case .gamma22: .power(2.2)
        case .gamma28: .power(2.8)
        case .smpte240, .logarithmic100, .logarithmic316, .iec61966_2_4, .bt1361, .pq, .smpte428, .hlg: nil
        }
    }

    /// Brighter than SDR white: an sRGB-style profile cannot describe it.
    public var isHighDynamicRange: Bool { self == .pq || self == .hlg }
}

/// A 3×3 matrix of doubles, rows first: just what the colorants need.
struct Matrix3: Sendable, Hashable {
    var rows: [SIMD3<Double>]

    init(rows: SIMD3<Double>, _ second: SIMD3<Double>, _ third: SIMD3<Double>) {
        self.rows = [rows, second, third]
    }

    init(columns first: SIMD3<Double>, _ second: SIMD3<Double>, _ third: SIMD3<Double>) {
        self.init(
            rows: SIMD3(first.x, second.x, third.x), SIMD3(first.y, second.y, third.y),
            SIMD3(first.z, second.z, third.z))
    }

    init(diagonal: SIMD3<Double>) {
        self.init(rows: SIMD3(diagonal.x, 0, 0), SIMD3(0, diagonal.y, 0), SIMD3(0, 0, diagonal.z))
    }

    func column(_ index: Int) -> SIMD3<Double> { SIMD3(rows[0][index], rows[1][index], rows[2][index]) }

    static func * (matrix: Matrix3, vector: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(matrix.rows.map { ($0 * vector).sum() })
    }

    static func * (left: Matrix3, right: Matrix3) -> Matrix3 {
        Matrix3(columns: left * right.column(0), left * right.column(1), left * right.column(2))
    }

    /// By cofactors; nil when (nearly) singular.
    var inverse: Matrix3? {
        let (a, b, c) = (rows[0], rows[1], rows[2])
        let cofactors = [cross(b, c), cross(c, a), cross(a, b)]  // columns of the adjugate
        let determinant = (a * cofactors[0]).sum()
        guard abs(determinant) > 1e-9, determinant.isFinite else { return nil }
        return Matrix3(columns: cofactors[0] / determinant, cofactors[1] / determinant, cofactors[2] / determinant)
    }

    private func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
    }

    /// Bradford chromatic adaptation from `source` white to `destination` white (both XYZ, Y = 1).
    static func bradford(from source: SIMD3<Double>, to destination: SIMD3<Double>) -> Matrix3 {
        let cone = Matrix3(
            rows: SIMD3(0.8951, 0.2664, -0.1614), SIMD3(-0.7502, 1.7135, 0.0367),
            SIMD3(0.0389, -0.0685, 1.0296))
        let gain = (cone * destination) / (cone * source)
        return cone.inverse! * Matrix3(diagonal: gain) * cone
    }
}
