/// A `.cube` file darkroom cannot use, with the line it stopped at (1-based; 0 when the
/// problem is the file as a whole).
public struct CubeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// More bytes than a 65³ table needs, or a line longer than any table writes.
        case tooLarge = "lut_too_large"
        /// A line that is neither a keyword, a comment nor three numbers.
        case malformed = "lut_malformed"
        /// LUT_3D_SIZE outside 2…65 or LUT_1D_SIZE outside 2…65536, or neither given.
        case badSize = "lut_bad_size"
        /// Fewer points than the size says.
        case shortTable = "lut_short_table"
        /// More points than the size says.
        case longTable = "lut_long_table"
        /// NaN or an infinite number (or one too large to be a Float).
        case notFinite = "lut_not_finite"
        /// DOMAIN_MIN not below DOMAIN_MAX in every channel.
        case badDomain = "lut_bad_domain"
        /// Something the format allows that darkroom does not render: a 1D and a 3D table in one file.
        case unsupported = "lut_unsupported"
    }

    public var code: Code
    public var message: String
    public var line: Int

    public init(_ code: Code, _ message: String, line: Int = 0) {
        self.code = code
        self.message = message
        self.line = line
    }

    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}
