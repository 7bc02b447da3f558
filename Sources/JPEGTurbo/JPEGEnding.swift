internal import CJPEG

/// How a JPEG's data ended, as the decoder met it, and what that means for its pixels: the one
/// place that decides which irregular endings, and which stray bytes in the data, are harmless.
/// Built from what the C boundary recorded (where the input ran out, what the scans covered,
/// what followed the EOI marker, where bytes were skipped looking for a marker), never from
/// libjpeg's message text.
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
    /// Bytes skipped looking for a marker so far, by where they lay.
    var skipped = Skipped()

    struct Skipped: Sendable, Equatable {
        /// After the SOI or a complete marker segment, before the next marker: in the header,
        /// between scans, before the EOI. Every marker segment is read whole by its length and
        /// no scan's data lies there, so no pixel depends on them.
        var betweenMarkers: Run?
        /// From where a scan's entropy decoder stopped (its last block decoded) to the next
        /// marker. Junk inside the scan's data leaves the same trace (the decoder runs through it
        /// and stops short of the marker), so these cannot be told from corrupt scan data.
        var afterScanData: Run?
        /// Inside a scan, where a restart marker was due: the interval's data was not what its
        /// blocks needed.
        var beforeRestart: Run?
    }

    /// Bytes skipped on the way to one kind of place, summed.
    struct Run: Sendable, Equatable {
        var runs: Int
        var bytes: Int
        /// The marker found after the first run, and where it starts.
        var marker: Int
        var markerOffset: Int
    }

    struct Trailer: Sendable, Equatable {
        var count: Int
        var eoiEnd: Int
    }

    /// What the bytes skipped inside or right after a scan's data mean, as soon as they are met:
    /// rows decoded from such a scan are not known to come from the file's data.
    var scanDataDamage: Verdict? {
        if let run = skipped.beforeRestart {
            return .damaged(
                .corruptScanData,
                message: "\(Self.bytes(run.bytes)) of scan data were left over before restart marker "
                    + "\(Self.hex(run.marker)): the blocks of that interval were not decoded from the data written for them",
                byteOffset: run.markerOffset)
        }
        if let run = skipped.afterScanData {
            return .damaged(
                .corruptScanData,
                message: "\(Self.bytes(run.bytes)) were left over between the end of a scan's data and marker "
                    + "\(Self.hex(run.marker)): the scan's last block ended before its data did, "
                    + "which is what junk inside the data does too", byteOffset: run.markerOffset)
        }
        return nil
    }

    var verdict: Verdict {
        if let damage = scanDataDamage { return damage }
        let between = skipped.betweenMarkers.map {
            JPEGWarning.extraneousBytes(
                count: $0.bytes, marker: $0.marker, markerOffset: $0.markerOffset, runs: $0.runs)
        }
        switch endingVerdict {
        case .intact(let warnings): return .intact((between.map { [$0] } ?? []) + warnings)
        case .damaged(let damage, let message, let offset):
            return .damaged(damage, message: message, byteOffset: offset)
        }
    }

    private static func bytes(_ count: Int) -> String { "\(count) byte\(count == 1 ? "" : "s")" }
    static func hex(_ marker: Int) -> String {
        let digits = String(marker, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" : "") + digits
    }

    private var endingVerdict: Verdict {
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
