#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a gain map's numbers say, whichever format carried them (ISO 21496-1, Adobe's `hdrgm`
/// XMP, Apple's headroom): ISO 21496-1's terms. Gains, headrooms are log2 (stops); a value per
/// channel (red, green, blue), equal for a single-channel map.
///
/// The base image is the one the file shows everywhere (standard range unless `baseIsHDR`);
/// the alternate is what the gain map turns it into on a display of `alternateHeadroom` stops.
public struct GainMapMetadata: Sendable, Equatable {
    public var gainMapMin: SIMD3<Double>
    public var gainMapMax: SIMD3<Double>
    public var gamma: SIMD3<Double>
    public var baseOffset: SIMD3<Double>
    public var alternateOffset: SIMD3<Double>
    /// log2 of the headroom the base image is meant for (0 for standard range).
    public var baseHeadroom: Double
    /// log2 of the headroom the alternate image is meant for.
    public var alternateHeadroom: Double
    /// Whether the gain is applied in the base image's colour space (ISO 21496-1's flag; XMP and
    /// Apple's maps always are).
    public var useBaseColorSpace: Bool

    public init(
        gainMapMin: SIMD3<Double>, gainMapMax: SIMD3<Double>, gamma: SIMD3<Double> = .one,
        baseOffset: SIMD3<Double> = SIMD3(repeating: 1.0 / 64),
        alternateOffset: SIMD3<Double> = SIMD3(repeating: 1.0 / 64),
        baseHeadroom: Double, alternateHeadroom: Double, useBaseColorSpace: Bool = true
    ) {
        self.gainMapMin = gainMapMin
        self.gainMapMax = gainMapMax
        self.gamma = gamma
        self.baseOffset = baseOffset
        self.alternateOffset = alternateOffset
        self.baseHeadroom = baseHeadroom
        self.alternateHeadroom = alternateHeadroom
        self.useBaseColorSpace = useBaseColorSpace
    }

    /// The base image is the HDR one and the map takes it down to standard range (ISO 21496-1's
    /// backward direction; `hdrgm:BaseRenditionIsHDR`).
    public var baseIsHDR: Bool { baseHeadroom > alternateHeadroom }

    /// Whether the channels differ (a three-channel map's metadata).
    public var isMultichannel: Bool {
        [gainMapMin, gainMapMax, gamma, baseOffset, alternateOffset].contains { $0.x != $0.y || $0.x != $0.z }
    }

    /// darkroom's bounds on values no real gain map comes near (the largest seen: about 7
    /// stops): past them `exp2` overflows or the map means nothing.
    public static let maxStops = 32.0
    public static let maxOffset = 1.0
    public static let maxGamma = 64.0

    /// The same values, or `.inconsistent` when they contradict each other or darkroom's bounds:
    /// NaN or infinity, a minimum above its maximum, a gamma not above 0, a negative headroom, the
    /// two headrooms equal (no display would ever see the map).
    public func validated(_ structure: GainMapError.Structure) throws(GainMapError) -> GainMapMetadata {
        func fail(_ message: String) -> GainMapError { GainMapError(.inconsistent, structure, message) }
        for (name, values) in [
            ("GainMapMin", gainMapMin), ("GainMapMax", gainMapMax), ("Gamma", gamma), ("base offset", baseOffset),
            ("alternate offset", alternateOffset),
        ] {
            for channel in 0..<3 where !values[channel].isFinite {
                throw fail("\(name) is \(values[channel]) for channel \(channel)")
            }
        }
        for (name, value) in [("base headroom", baseHeadroom), ("alternate headroom", alternateHeadroom)] {
            guard value.isFinite, value >= 0, value <= Self.maxStops else {
                throw fail("the \(name) is \(value) stops (0 to \(Self.maxStops))")
            }
        }
        guard baseHeadroom != alternateHeadroom else {
            throw fail("both headrooms are \(baseHeadroom) stops: no display would apply the map")
        }
        for channel in 0..<3 {
            guard gainMapMin[channel] <= gainMapMax[channel] else {
                throw fail("GainMapMin \(gainMapMin[channel]) is above GainMapMax \(gainMapMax[channel])")
            }
            guard abs(gainMapMin[channel]) <= Self.maxStops, abs(gainMapMax[channel]) <= Self.maxStops else {
                throw fail("a gain of more than \(Self.maxStops) stops")
            }
            guard gamma[channel] > 0, gamma[channel] <= Self.maxGamma else {
                throw fail("Gamma is \(gamma[channel]) (above 0, at most \(Self.maxGamma))")
            }
            guard abs(baseOffset[channel]) <= Self.maxOffset, abs(alternateOffset[channel]) <= Self.maxOffset else {
                throw fail("an offset beyond ±\(Self.maxOffset)")
            }
        }
        return self
    }
}

/// Which format a gain map's metadata came in.
public enum GainMapKind: String, Sendable, CaseIterable {
    /// ISO 21496-1: JPEG APP2 `urn:iso:std:iso:ts:21496:-1`, HEIF `tmap`.
    case iso21496 = "iso_21496_1"
    /// Adobe's gain map 1.0 XMP (`hdrgm`), which Ultra HDR uses.
    case adobeXMP = "hdrgm"
    /// Apple's HDR gain map (`urn:com:apple:photo:2020:aux:hdrgainmap`), its headroom from XMP
    /// `HDRGainMap:HDRGainMapHeadroom` or MakerNote tags 33 and 48.
    case apple
}
