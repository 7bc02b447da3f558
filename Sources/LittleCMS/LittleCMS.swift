internal import CLCMS

/// What Little CMS refused: a stable code, what it means for the caller, and Little CMS's own
/// error (its `cmsERROR_*` code and text) as the cause when it logged one.
public struct LittleCMSError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The bytes are not an ICC profile Little CMS can read.
        case unreadableProfile = "unreadable_profile"
        /// A readable profile of another colour space than the pixels' (an RGB profile on CMYK pixels).
        case wrongColorSpace = "wrong_colour_space"
        /// Little CMS could not build a transform between the profiles (a profile without the
        /// tables the direction needs).
        case noTransform = "no_transform"
        case outOfMemory = "out_of_memory"
    }

    public var code: Code
    public var message: String
    /// Little CMS's `cmsERROR_*` code and text, when it logged an error.
    public var libraryCode: Int?
    public var libraryMessage: String?

    public var description: String {
        message + (libraryMessage.map { " (Little CMS: \($0))" } ?? "")
    }
}

/// The first error Little CMS logged in one context since it was cleared.
final class ErrorLog {
    var code: UInt32?
    var text: String?

    func clear() {
        code = nil
        text = nil
    }
}

/// Owns one `cmsContext`: every profile and transform is made in one, and its error handler
/// writes into the context's log, so errors are told apart by object, never by a global.
final class Context {
    let handle: cmsContext
    let log: ErrorLog

    init() throws(LittleCMSError) {
        let log = ErrorLog()
        guard let handle = cmsCreateContext(nil, Unmanaged.passUnretained(log).toOpaque()) else {
            throw LittleCMSError(code: .outOfMemory, message: "could not allocate a Little CMS context")
        }
        cmsSetLogErrorHandlerTHR(handle) { context, code, text in
            guard let context, let user = cmsGetContextUserData(context) else { return }
            let log = Unmanaged<ErrorLog>.fromOpaque(user).takeUnretainedValue()
            if log.code == nil {
                log.code = code
                log.text = text.map { String(cString: $0) }
            }
        }
        self.handle = handle
        self.log = log
    }

    deinit { cmsDeleteContext(handle) }

    func error(_ code: LittleCMSError.Code, _ message: String) -> LittleCMSError {
        defer { log.clear() }
        return LittleCMSError(
            code: code, message: message, libraryCode: log.code.map(Int.init), libraryMessage: log.text)
    }
}

/// One ICC profile as Little CMS reads it: owns its `cmsHPROFILE` (and the context it lives in).
public final class ColorProfile {
    public enum Space: Sendable, Equatable {
        case rgb, cmyk, grey
        /// Another ICC colour space signature (e.g. "Lab ").
        case other(String)
    }

    let context: Context
    let handle: cmsHPROFILE
    public let space: Space

    /// Parses `bytes` (an embedded profile: bytes from outside, which Little CMS checks as it reads).
    public init(iccBytes bytes: [UInt8]) throws(LittleCMSError) {
        let context = try Context()
        let opened = bytes.withUnsafeBytes { raw in
            cmsOpenProfileFromMemTHR(context.handle, raw.baseAddress, cmsUInt32Number(clamping: raw.count))
        }
        guard let opened else {
            throw context.error(.unreadableProfile, "the \(bytes.count)-byte ICC profile cannot be read")
        }
        self.context = context
        handle = opened
        space = Self.space(of: opened)
    }

    /// Little CMS's built-in sRGB (IEC 61966-2-1) profile.
    public static func sRGB() throws(LittleCMSError) -> ColorProfile {
        let context = try Context()
        guard let handle = cmsCreate_sRGBProfileTHR(context.handle) else {
            throw context.error(.outOfMemory, "could not build the sRGB profile")
        }
        return ColorProfile(context: context, handle: handle)
    }

    private init(context: Context, handle: cmsHPROFILE) {
        self.context = context
        self.handle = handle
        space = Self.space(of: handle)
    }

    deinit { cmsCloseProfile(handle) }

    private static func space(of handle: cmsHPROFILE) -> Space {
        let signature = cmsGetColorSpace(handle)
        switch signature {
        case cmsSigRgbData: return .rgb
        case cmsSigCmykData: return .cmyk
        case cmsSigGrayData: return .grey
        default:
            let value = signature.rawValue
            let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
            return .other(String(decoding: bytes, as: UTF8.self))
        }
    }
}

/// Owns one `cmsHTRANSFORM` from 8-bit CMYK to 8-bit RGB, perceptual intent, no flags. The
/// profiles may go once it is made (Little CMS keeps what it needs); a transform is used by one
/// thread at a time.
public final class CMYKToRGBTransform {
    /// How the CMYK bytes count ink.
    public enum Input: Sendable, Equatable {
        /// 0 is no ink, 255 full ink.
        case cmyk
        /// 255 is no ink, 0 full ink: what Adobe's JPEGs store.
        case invertedCMYK
    }

    /// What a transform holds, for budgets: Little CMS turns a CMYK→RGB transform into a 4-D
    /// table of 17⁴ nodes × 3 outputs × 2 bytes (≈ 0.5 MiB), beside the profiles' own tables
    /// it keeps while building it. Counted at 4 MiB: well above both.
    public static let approximateBytes = 4 << 20

    let context: Context
    let handle: cmsHTRANSFORM

    public init(from source: ColorProfile, input: Input, to destination: ColorProfile) throws(LittleCMSError) {
        guard source.space == .cmyk else {
            throw LittleCMSError(
                code: .wrongColorSpace, message: "the ICC profile describes \(source.space), not CMYK pixels")
        }
        guard destination.space == .rgb else {
            throw LittleCMSError(
                code: .wrongColorSpace, message: "the output profile describes \(destination.space), not RGB")
        }
        let context = source.context
        guard
            let handle = cmsCreateTransformTHR(
                context.handle, source.handle, input == .cmyk ? DR_TYPE_CMYK_8 : DR_TYPE_CMYK_8_REV,
                destination.handle, DR_TYPE_RGB_8, cmsUInt32Number(INTENT_PERCEPTUAL), 0)
        else {
            throw context.error(.noTransform, "no transform from the CMYK profile to RGB")
        }
        self.context = context
        self.handle = handle
    }

    deinit { cmsDeleteTransform(handle) }

    /// Converts `pixels` pixels: 4 bytes each from `cmyk` into 3 bytes each in `rgb`.
    public func convert(_ cmyk: UnsafeRawBufferPointer, into rgb: UnsafeMutableRawBufferPointer, pixels: Int) {
        precondition(cmyk.count >= pixels * 4 && rgb.count >= pixels * 3)
        guard pixels > 0 else { return }
        cmsDoTransform(handle, cmyk.baseAddress, rgb.baseAddress, cmsUInt32Number(pixels))
    }
}

/// Owns one `cmsHTRANSFORM` from 8-bit RGB in one profile to 8-bit RGB in another, relative
/// colorimetric intent (colours inside both gamuts keep their values), no flags. Used by one
/// thread at a time.
public final class RGBTransform {
    /// What a transform holds, for budgets: Little CMS optimises an 8-bit RGB→RGB transform into
    /// curves and a 3-D table (33³ nodes × 3 outputs × 2 bytes ≈ 0.2 MiB) beside the profiles'
    /// tables it reads while building it. Counted at 2 MiB: well above both.
    public static let approximateBytes = 2 << 20

    let context: Context
    let handle: cmsHTRANSFORM

    public init(from source: ColorProfile, to destination: ColorProfile) throws(LittleCMSError) {
        guard source.space == .rgb, destination.space == .rgb else {
            throw LittleCMSError(
                code: .wrongColorSpace,
                message: "the ICC profiles describe \(source.space) and \(destination.space), not RGB pixels")
        }
        let context = source.context
        guard
            let handle = cmsCreateTransformTHR(
                context.handle, source.handle, DR_TYPE_RGB_8, destination.handle, DR_TYPE_RGB_8,
                cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)
        else {
            throw context.error(.noTransform, "no transform between the two RGB profiles")
        }
        self.context = context
        self.handle = handle
    }

    deinit { cmsDeleteTransform(handle) }

    /// Converts `pixels` pixels, 3 bytes each, from `source` into `target`.
    public func convert(_ source: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer, pixels: Int) {
        precondition(source.count >= pixels * 3 && target.count >= pixels * 3)
        guard pixels > 0 else { return }
        cmsDoTransform(handle, source.baseAddress, target.baseAddress, cmsUInt32Number(pixels))
    }
}
