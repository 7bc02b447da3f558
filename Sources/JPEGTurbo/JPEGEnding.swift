import CJPEG

/// How a JPEG's data ended, as the decoder met it, and what that means for its pixels: the one
/// place that decides which irregular endings are harmless. Built from what the C boundary
/// recorded (where the input ran out, what the scans covered, what followed the EOI marker),
/// never from libjpeg's message text.
///
/// A cut inside a scan never gets here: libjpeg warns when it needs bits the file does not
/// have, and that warning fails the decode (see `JPEGError.Damage(failedOnWarning:inputRanDry:)`).
/// What is left to judge is a file that stopped between scans, or only lacks its EOI marker.
struct JPEGEnding: Sendable, Equatable {
    /// What the scans read so far delivered.
    struct Coverage: Sendable, Equatable {
        var components: Int
        var componentsScanned: Int
        /// Progressive: (component, coefficient) pairs never sent or not refined to full precision.
        var coefficientsShort: Int
        var isArithmetic: Bool

        var isComplete: Bool { componentsScanned >= components && coefficientsShort == 0 }
    }

    enum Verdict: Sendable, Equatable {
        /// Every row comes from the file's data; the warnings say what was irregular.
        case intact([JPEGWarning])
        case damaged(JPEGError.Damage, message: String, byteOffset: Int)
    }

    /// The input's length, when it ran out before an EOI marker (the boundary supplied one).
    var ranDryAt: Int?
    var coverage: Coverage
    /// Once the file's EOI marker was read: where it ended and how many bytes followed it.
    var trailer: Trailer?

    struct Trailer: Sendable, Equatable {
        var count: Int
        var eoiEnd: Int
    }

    var verdict: Verdict {
        if let end = ranDryAt {
            if coverage.isArithmetic {
                return .damaged(
                    .unverifiableEnd,
                    message: "the arithmetic-coded file ends without its EOI marker, "
                        + "so a cut inside its last scan cannot be told from its end", byteOffset: end)
            }
            guard coverage.isComplete else {
                return .damaged(
                    .cutBetweenScans,
                    message: "the file ends between scans: " + missing
                        + " never arrived, so the image would be incomplete or blurred", byteOffset: end)
            }
            return .intact([.missingEOI(fileLength: end)])
        }
        if let trailer, trailer.count > 0 {
            return .intact([.trailingBytes(count: trailer.count, eoiEnd: trailer.eoiEnd)])
        }
        return .intact([])
    }

    private var missing: String {
        var parts: [String] = []
        let unscanned = coverage.components - coverage.componentsScanned
        if unscanned > 0 { parts.append("the scans of \(unscanned) of \(coverage.components) components") }
        if coverage.coefficientsShort > 0 {
            parts.append("the refinement of \(coverage.coefficientsShort) of \(coverage.components * 64) coefficients")
        }
        return parts.joined(separator: " and ")
    }
}

/// libjpeg's warnings about entropy-coded data, by message code: each means the decoder met
/// data it could not decode as written (a bad code, a marker where bits should be, a lost
/// restart marker, bytes left over when the scan was done).
private let scanDataWarnings: Set<UInt32> = [
    JWRN_HIT_MARKER.rawValue, JWRN_HUFF_BAD_CODE.rawValue, JWRN_ARITH_BAD_CODE.rawValue,
    JWRN_MUST_RESYNC.rawValue, JWRN_EXTRANEOUS_DATA.rawValue,
]

extension JPEGError.Damage {
    /// What failed a decode. `warningCode` is libjpeg's message code when a warning failed it
    /// (nil for a fatal error); `inputRanDry` says the input had run out before, and
    /// `inHeader` that the decoder was still reading the markers before the first scan.
    /// Returns nil for a fatal error in data that did not run out: that is `.corrupt`, not damage.
    init?(warningCode: Int32?, inputRanDry: Bool, inHeader: Bool = false) {
        guard let warningCode, !(inputRanDry && inHeader) else {
            guard inputRanDry else { return nil }
            self = .cutInMarkers
            return
        }
        if scanDataWarnings.contains(UInt32(bitPattern: warningCode)) {
            self = inputRanDry ? .cutInScanData : .corruptScanData
        } else {
            self = .inconsistentMarkers
        }
    }
}
