import CJPEG
import Testing

@testable import JPEGTurbo

/// The decision alone, from the facts the boundary records: which endings are harmless.
@Suite struct JPEGEndingTests {
    static let complete = JPEGEnding.Coverage(
        components: 3, componentsScanned: 3, coefficientsShort: 0, isArithmetic: false)

    @Test func anIntactFileHasNoWarnings() {
        #expect(
            JPEGEnding(ranDryAt: nil, coverage: Self.complete, trailer: .init(count: 0, eoiEnd: 900)).verdict
                == .intact([]))
        // Before finish (no trailer counted yet) nothing is known to be wrong either.
        #expect(JPEGEnding(ranDryAt: nil, coverage: Self.complete, trailer: nil).verdict == .intact([]))
    }

    @Test func endingWithoutEOIAfterEveryScanIsAWarning() {
        #expect(
            JPEGEnding(ranDryAt: 5000, coverage: Self.complete, trailer: nil).verdict
                == .intact([.missingEOI(fileLength: 5000)]))
    }

    @Test func bytesAfterTheEOIAreAWarningWithTheirCount() {
        let verdict = JPEGEnding(ranDryAt: nil, coverage: Self.complete, trailer: .init(count: 12, eoiEnd: 900)).verdict
        #expect(verdict == .intact([.trailingBytes(count: 12, eoiEnd: 900)]))
        guard case .intact(let warnings) = verdict, let warning = warnings.first else { return }
        #expect(warning.code == "jpeg.trailing_bytes" && warning.byteOffset == 900 && warning.byteCount == 12)
        #expect(warning.message == "12 bytes follow the EOI marker at byte 900; ignored")
    }

    @Test func endingBetweenScansIsDamage() {
        var coverage = Self.complete
        coverage.coefficientsShort = 63
        guard
            case .damaged(let damage, let message, let offset) = JPEGEnding(
                ranDryAt: 700, coverage: coverage, trailer: nil
            ).verdict
        else {
            Issue.record("expected damage")
            return
        }
        #expect(damage == .cutBetweenScans && offset == 700)
        #expect(message.contains("the refinement of 63 of 192 coefficients"))
        // A non-interleaved file whose chroma scans never came.
        coverage = .init(components: 3, componentsScanned: 1, coefficientsShort: 0, isArithmetic: false)
        guard
            case .damaged(.cutBetweenScans, let second, _) = JPEGEnding(ranDryAt: 700, coverage: coverage, trailer: nil)
                .verdict
        else {
            Issue.record("expected damage")
            return
        }
        #expect(second.contains("the scans of 2 of 3 components"))
        // Short coverage with the file's own EOI marker is how its encoder wrote it: not damage.
        #expect(
            JPEGEnding(ranDryAt: nil, coverage: coverage, trailer: .init(count: 0, eoiEnd: 800)).verdict == .intact([]))
    }

    /// Arithmetic coding may stop inside a scan legally, so the decoder cannot tell a cut.
    @Test func anArithmeticCodedFileWithoutEOIIsRefused() {
        var coverage = Self.complete
        coverage.isArithmetic = true
        guard case .damaged(let damage, _, _) = JPEGEnding(ranDryAt: 700, coverage: coverage, trailer: nil).verdict
        else {
            Issue.record("expected damage")
            return
        }
        #expect(damage == .unverifiableEnd)
        #expect(
            JPEGEnding(ranDryAt: nil, coverage: coverage, trailer: .init(count: 0, eoiEnd: 700)).verdict == .intact([]))
    }

    /// From libjpeg's message codes, never its text.
    @Test func failuresAreClassifiedByMessageCode() {
        let code = { (message: J_MESSAGE_CODE) in Int32(bitPattern: message.rawValue) }
        for scanData in [
            JWRN_HIT_MARKER, JWRN_HUFF_BAD_CODE, JWRN_ARITH_BAD_CODE, JWRN_MUST_RESYNC, JWRN_EXTRANEOUS_DATA,
        ] {
            #expect(JPEGError.Damage(warningCode: code(scanData), inputRanDry: true) == .cutInScanData)
            #expect(JPEGError.Damage(warningCode: code(scanData), inputRanDry: false) == .corruptScanData)
        }
        for other in [JWRN_BOGUS_PROGRESSION, JWRN_NOT_SEQUENTIAL, JWRN_BOGUS_ICC, JWRN_ADOBE_XFORM] {
            #expect(JPEGError.Damage(warningCode: code(other), inputRanDry: false) == .inconsistentMarkers)
        }
        #expect(JPEGError.Damage(warningCode: nil, inputRanDry: true) == .cutInMarkers)
        // Leftover bytes before a marker after a cut in the header are not scan data.
        #expect(
            JPEGError.Damage(warningCode: code(JWRN_EXTRANEOUS_DATA), inputRanDry: true, inHeader: true)
                == .cutInMarkers)
        #expect(
            JPEGError.Damage(warningCode: nil, inputRanDry: false) == nil,
            "a fatal error in data that did not run out is .corrupt")
    }

    /// Skipped bytes: between markers a warning with their sum, inside or right after a
    /// scan's data damage, whatever the ending.
    @Test func skippedBytesAreJudgedByWhereTheyLay() {
        let run = JPEGEnding.Run(runs: 2, bytes: 30, marker: 0xDB, markerOffset: 400)
        var ending = JPEGEnding(ranDryAt: nil, coverage: Self.complete, trailer: .init(count: 3, eoiEnd: 900))
        ending.skipped.betweenMarkers = run
        #expect(ending.scanDataDamage == nil)
        #expect(
            ending.verdict
                == .intact([
                    .extraneousBytes(count: 30, marker: 0xDB, markerOffset: 400, runs: 2),
                    .trailingBytes(count: 3, eoiEnd: 900),
                ]))
        #expect(
            JPEGWarning.extraneousBytes(count: 30, marker: 0xDB, markerOffset: 400, runs: 2).message
                == "30 extraneous bytes between marker segments, before marker 0xDB at byte 400 "
                + "(and in 1 more places); skipped: no scan data lies there")

        var afterScan = ending
        afterScan.skipped.afterScanData = .init(runs: 1, bytes: 5, marker: 0xD9, markerOffset: 880)
        #expect(afterScan.verdict == afterScan.scanDataDamage)
        guard case .damaged(.corruptScanData, _, 880) = afterScan.verdict else {
            Issue.record("expected damage at the marker: \(afterScan.verdict)")
            return
        }
        var atRestart = JPEGEnding(ranDryAt: nil, coverage: Self.complete, trailer: nil)
        atRestart.skipped.beforeRestart = .init(runs: 1, bytes: 9, marker: 0xD3, markerOffset: 5000)
        guard case .damaged(.corruptScanData, let message, 5000) = atRestart.verdict else {
            Issue.record("expected damage at the restart marker: \(atRestart.verdict)")
            return
        }
        #expect(message.hasPrefix("9 bytes of scan data were left over before restart marker 0xD3"))
        // Damage in the data wins over a harmless ending.
        var both = afterScan
        both.ranDryAt = 950
        guard case .damaged(.corruptScanData, _, _) = both.verdict else {
            Issue.record("expected damage")
            return
        }
    }
}
