import DarkroomAdjustments
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

/// The `.cube` reader: real files other programs wrote, every keyword, and hostile files, each
/// refused with its own code (docs/hostile-input.md).
@Suite struct CubeFileTests {
    /// A 3D table of `size` whose points are written by `point`, with `header` lines first.
    static func cube(size: Int, header: [String] = [], point: (Int, Int, Int) -> String? = { _, _, _ in nil })
        -> String
    {
        var lines = header + ["LUT_3D_SIZE \(size)"]
        let step = 1 / Double(size - 1)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    lines.append(point(r, g, b) ?? "\(Double(r) * step) \(Double(g) * step) \(Double(b) * step)")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func refusal(_ text: String) -> CubeError? { refusal(Array(text.utf8)) }

    func refusal(_ bytes: [UInt8]) -> CubeError? {
        do {
            _ = try CubeFile.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Real files

    /// OBS Studio's 1D identity (`original.cube`): 32 points, no other keyword.
    @Test func obsOriginalIsA1DIdentity() throws {
        let table = try CubeFile.parse(
            Fixtures.bytes(of: Fixtures.root.appendingPathComponent("luts/obs-original.cube")))
        #expect(table.kind == .curves && table.size == 32 && table.title == nil)
        #expect(table.domainMin == .black && table.domainMax == .grey(1))
        let values = Array(table.values)
        #expect(values.count == 96)
        #expect(values[3...5] == [0.0322581, 0.0322581, 0.0322581])
        #expect(values[93...95] == [1, 1, 1])
    }

    /// OBS Studio's `grayscale.cube`: a 32³ table, red varying fastest.
    @Test func obsGrayscaleIsA3DTable() throws {
        let table = try CubeFile.parse(
            Fixtures.bytes(of: Fixtures.root.appendingPathComponent("luts/obs-grayscale.cube")))
        #expect(table.kind == .cube && table.size == 32)
        let values = Array(table.values)
        #expect(values.count == 32 * 32 * 32 * 3)
        #expect(values[3...5] == [0.006858064, 0.006858064, 0.006858064])  // (1, 0, 0)
        #expect(values[(32 * 3)...(32 * 3 + 2)] == [0.02307097, 0.02307097, 0.02307097])  // (0, 1, 0)
        #expect(values.suffix(3) == [1, 1, 1])
    }

    // MARK: Keywords

    @Test func everyKeywordCommentsAndLineEnds() throws {
        let text = Self.cube(
            size: 2,
            header: [
                "# made by hand", "TITLE \"Dusk #2 \u{00E9}\"", "  DOMAIN_MIN 0 0 -0.5  # below black",
                "DOMAIN_MAX 1 1.5 1e0", "LUT_IN_VIDEO_RANGE", "",
            ]
        ).replacingOccurrences(of: "\n", with: "\r\n")
        let table = try CubeFile.parse(Array(text.utf8))
        #expect(table.title == "Dusk #2 \u{00E9}")
        #expect(table.domainMin == RGBColor(red: 0, green: 0, blue: -0.5))
        #expect(table.domainMax == RGBColor(red: 1, green: 1.5, blue: 1))
        #expect(table.kind == .cube && table.size == 2 && table.values.count == 24)
        // Bare carriage returns end lines too.
        let classic = try CubeFile.parse(Array(Self.cube(size: 2).replacingOccurrences(of: "\n", with: "\r").utf8))
        #expect(classic.size == 2)
    }

    @Test func resolveInputRangeIsTheDomain() throws {
        let table = try CubeFile.parse(Array(Self.cube(size: 3, header: ["LUT_3D_INPUT_RANGE -0.25 1.25"]).utf8))
        #expect(table.domainMin == .grey(-0.25) && table.domainMax == .grey(1.25))
    }

    @Test func sizesAtTheirBounds() throws {
        #expect(try CubeFile.parse(Array(Self.cube(size: 2).utf8)).size == 2)
        #expect(try CubeFile.parse(Array(Self.cube(size: 65).utf8)).size == 65)
        #expect(refusal(Self.cube(size: 66))?.code == .badSize)
        #expect(refusal("LUT_3D_SIZE 1\n0 0 0\n")?.code == .badSize)
        #expect(refusal("LUT_3D_SIZE 0\n")?.code == .badSize)
        #expect(refusal("LUT_3D_SIZE -8\n")?.code == .badSize)
        #expect(refusal("LUT_3D_SIZE 33.0\n")?.code == .badSize)
        #expect(refusal("LUT_3D_SIZE 99999999999999999999999\n")?.code == .badSize)
        #expect(refusal("LUT_3D_SIZE 17 17\n")?.code == .badSize)
        #expect(refusal("LUT_1D_SIZE 65537\n")?.code == .badSize)
        let curve = (0..<65_536).map { "\(Double($0) / 65_535) 0 1" }.joined(separator: "\n")
        #expect(try CubeFile.parse(Array(("LUT_1D_SIZE 65536\n" + curve).utf8)).size == 65_536)
    }

    // MARK: Hostile files

    @Test func shortAndLongTables() {
        var lines = Self.cube(size: 3).split(separator: "\n").map(String.init)
        lines.removeLast()
        let short = refusal(lines.joined(separator: "\n"))
        #expect(short?.code == .shortTable)
        #expect(short?.description == "the table has 26 points; LUT_3D_SIZE 3 needs 27")
        #expect(
            refusal(Self.cube(size: 3) + "0 0 0\n")
                == CubeError(.longTable, "the table has more than the 27 points its size says", line: 29))
        #expect(refusal("LUT_3D_SIZE 2\n")?.code == .shortTable)
        #expect(refusal("")?.code == .badSize)
        #expect(refusal("TITLE \"only a title\"\n")?.code == .badSize)
        #expect(refusal("0 0 0\n")?.code == .badSize)
    }

    @Test func numbersThatAreNotFinite() {
        for bad in ["nan", "NaN", "-nan", "inf", "-Infinity", "+INF", "1e39", "-3.5e40"] {
            let error = refusal(Self.cube(size: 2) { r, g, b in r == 1 && g == 1 && b == 0 ? "0.5 \(bad) 0" : nil })
            #expect(error?.code == .notFinite, "\(bad)")
            #expect(error?.line == 5, "\(bad)")
        }
        #expect(refusal(Self.cube(size: 2, header: ["DOMAIN_MAX 1 nan 1"]))?.code == .notFinite)
    }

    @Test func numbersThatAreNotDecimals() throws {
        for bad in ["0x1p-2", "1,5", ".", "-", "1e", "1e+", "1..2", "1.2.3", "½", "0 0", "", "1 2 3 4"] {
            let error = refusal(Self.cube(size: 2) { r, _, _ in r == 1 ? "0 0 \(bad)" : nil })
            #expect(error?.code == .malformed, "\(bad)")
        }
        #expect(try CubeFile.parse(Array(Self.cube(size: 2) { _, _, _ in "+.5 -0. 5E-1" }.utf8)).size == 2)
    }

    /// Short decimals are read without `Float(String)`, and must read as it reads them: numbers
    /// of six places from −1.2 to 1.2, and other lengths, signs and exponents.
    @Test func numbersReadAsFloatReadsThem() throws {
        var words = stride(from: -1_200_000, through: 1_200_000, by: 5).map {
            String(format: "%.6f", Double($0) / 1_000_000)
        }
        var state: UInt64 = 11
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let digits = String((state >> 20) % 100_000_000_000)
            let point = Int(state >> 60) % (digits.count + 1)
            let word = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            words += [word, "-" + word, "+" + word, word + "e-3", "0.000" + digits, digits]
        }
        words += ["16777216", "16777217", "1677721.7", "0.16777217", "-0.", "+.5", "0.0000000001", "1.00000000001"]
        words += Array(repeating: "0", count: (3 - words.count % 3) % 3)
        let points = 65_536
        for start in stride(from: 0, to: words.count, by: points * 3) {
            let part = words[start..<min(start + points * 3, words.count)]
            var lines = ["LUT_1D_SIZE \(part.count / 3)"]
            for index in stride(from: part.startIndex, to: part.endIndex, by: 3) {
                lines.append(part[index..<index + 3].joined(separator: " "))
            }
            let table = try CubeFile.parse(Array(lines.joined(separator: "\n").utf8))
            for (word, value) in zip(part, table.values) where Float(word)!.bitPattern != value.bitPattern {
                Issue.record("\(word) read as \(value), Float(String) reads \(Float(word)!)")
            }
        }
    }

    @Test func badDomains() {
        let equal = refusal(Self.cube(size: 2, header: ["DOMAIN_MIN 0 0.5 0", "DOMAIN_MAX 1 0.5 1"]))
        #expect(
            equal == CubeError(.badDomain, "the green domain runs from 0.5 to 0.5; DOMAIN_MIN must be below DOMAIN_MAX")
        )
        #expect(refusal(Self.cube(size: 2, header: ["DOMAIN_MIN 2 0 0"]))?.code == .badDomain)
        #expect(refusal(Self.cube(size: 2, header: ["LUT_3D_INPUT_RANGE 1 0"]))?.code == .badDomain)
        #expect(refusal(Self.cube(size: 2, header: ["DOMAIN_MIN 0 0"]))?.code == .malformed)
    }

    @Test func structureOutOfOrder() {
        #expect(refusal("LUT_1D_SIZE 2\nLUT_3D_SIZE 2\n")?.code == .unsupported)
        #expect(refusal("LUT_3D_SIZE 2\nLUT_3D_SIZE 2\n")?.code == .malformed)
        #expect(refusal("TITLE \"a\"\nTITLE \"b\"\nLUT_3D_SIZE 2\n")?.code == .malformed)
        #expect(refusal("TITLE unquoted\nLUT_3D_SIZE 2\n")?.code == .malformed)
        #expect(refusal("TITLE \"unclosed\nLUT_3D_SIZE 2\n")?.code == .malformed)
        let late = refusal(Self.cube(size: 2) { r, g, b in r + g + b == 0 ? "0 0 0\nDOMAIN_MAX 1 1 1" : nil })
        #expect(late?.code == .malformed && late?.line == 3)
    }

    @Test func titlesAreBoundedText() {
        let long = String(repeating: "x", count: CubeFile.maxTitleBytes + 1)
        #expect(refusal(Self.cube(size: 2, header: ["TITLE \"\(long)\""]))?.code == .tooLarge)
        var bytes = Array("TITLE \"".utf8) + [0xFF, 0xFE] + Array("\"\n".utf8)
        bytes += Array(Self.cube(size: 2).utf8)
        #expect(refusal(bytes)?.code == .malformed)
    }

    @Test func sizeLimits() {
        let padding = String(repeating: "#", count: CubeFile.maxLineBytes + 1)
        #expect(refusal(padding + "\n" + Self.cube(size: 2))?.code == .tooLarge)
        let comment = String(repeating: "#", count: CubeFile.maxLineBytes - 1) + "\n"
        let wholeComments = String(repeating: comment, count: CubeFile.maxBytes / comment.utf8.count + 1)
        #expect(
            refusal(wholeComments + Self.cube(size: 2))
                == CubeError(
                    .tooLarge,
                    "the file is \(wholeComments.utf8.count + Self.cube(size: 2).utf8.count) bytes; a .cube LUT darkroom reads is at most \(CubeFile.maxBytes)"
                ))
    }

    /// Every byte of a small file changed, and the file cut at every length: read or refused
    /// with a `CubeError`, never a crash (the fuzz target does the same at random).
    @Test func mutationsAreReadOrRefused() {
        let original = Array(Self.cube(size: 2, header: ["TITLE \"t\"", "DOMAIN_MIN 0 0 0"]).utf8)
        var outcomes = 0
        for index in original.indices {
            for replacement: UInt8 in [0x00, 0x0A, 0x20, 0x22, 0x23, 0x2D, 0x2E, 0x41, 0x65, 0x80, 0xFF] {
                var bytes = original
                bytes[index] = replacement
                outcomes += refusal(bytes) == nil ? 1 : 0
            }
            outcomes += refusal(Array(original[..<index])) == nil ? 1 : 0
        }
        #expect(outcomes > 0)
    }
}
