import Testing

@testable import DarkroomAdjustments

@Suite struct BinaryPropertyListTests {
    func refusal(_ bytes: [UInt8]) -> String {
        do {
            let value = try BinaryPropertyList.decode(bytes)
            return "accepted \(value.kind)"
        } catch let error as AdjustmentError {
            #expect(error.code == .malformedData)
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    // MARK: Round trips

    @Test func scalarsAndContainersRoundTrip() throws {
        let long = String(repeating: "x", count: 300)
        let value: PropertyListValue = .dictionary([
            "flags": .array([.bool(true), .bool(false)]),
            "integers": .array(
                [0, 1, 14, 15, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, .max, -1, .min].map {
                    .integer($0)
                }),
            "reals": .array([.real(0.5), .real(-0.0), .real(1e300), .real(.infinity), .real(0.1), .real(2.5e-8)]),
            "date": .date(-978_307_200),
            "data": .array([
                .data([]), .data(Array(0..<14)), .data(Array(0..<15)), .data(Array(repeating: 7, count: 300)),
            ]),
            "strings": .array([.string(""), .string("vignetteIntensity"), .string("é"), .string("a😀b"), .string(long)]),
            "uids": .array([.uid(0), .uid(255), .uid(256), .uid(70_000)]),
            "nested": .dictionary(["deeper": .array([.dictionary([:]), .array([])])]),
        ])
        #expect(try BinaryPropertyList.decode(BinaryPropertyList.encode(value)) == value)
    }

    @Test func negativeZeroAndCanonicallyEqualStringsAreKeptApart() throws {
        // Swift's == merges these; the writer's sharing must not.
        let value: PropertyListValue = .array([.real(0.0), .real(-0.0), .string("\u{E9}"), .string("e\u{301}")])
        guard case .array(let back) = try BinaryPropertyList.decode(BinaryPropertyList.encode(value)) else {
            Issue.record()
            return
        }
        guard case .real(let zero) = back[0], case .real(let negative) = back[1],
            case .string(let composed) = back[2], case .string(let decomposed) = back[3]
        else {
            Issue.record()
            return
        }
        #expect(zero.sign == .plus && negative.sign == .minus)
        #expect(Array(composed.utf8) == [0xC3, 0xA9])
        #expect(Array(decomposed.utf8) == [0x65, 0xCC, 0x81])
    }

    @Test func writerOutputIsTheDocumentedLayout() {
        // [true, 1]: the array first (A2, refs 1 and 2), then 09 and 10 01; offsets 8, 11, 12
        // in one byte each at byte 14; trailer: sizes 1/1, 3 objects, top 0, table at 14.
        let bytes = BinaryPropertyList.encode(.array([.bool(true), .integer(1)]))
        #expect(
            bytes == Array("bplist00".utf8) + [0xA2, 0x01, 0x02, 0x09, 0x10, 0x01] + [0x08, 0x0B, 0x0C]
                + [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(3, size: 8) + bigEndian(0, size: 8) + bigEndian(14, size: 8))
        // Equal scalars are stored once: ["a", "a"] has two objects, the array and one string.
        let shared = BinaryPropertyList.encode(.array([.string("a"), .string("a")]))
        #expect(Array(shared[8..<13]) == [0xA2, 0x01, 0x01, 0x51, 0x61])
    }

    @Test func realsUseFourBytesWhenExact() {
        // 0.5 is exact in a Float: 22 3F000000. 0.1 is not: 23 3FB999999999999A.
        #expect(Array(BinaryPropertyList.encode(.real(0.5))[8..<13]) == [0x22, 0x3F, 0x00, 0x00, 0x00])
        #expect(
            Array(BinaryPropertyList.encode(.real(0.1))[8..<17]) == [
                0x23, 0x3F, 0xB9, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9A,
            ])
    }

    @Test func manyObjectsUseTwoByteReferencesAndOffsets() throws {
        let value = PropertyListValue.array((0..<300).map { .integer(Int64($0) * 1000) })
        let bytes = BinaryPropertyList.encode(value)
        let trailer = bytes.count - 32
        #expect(bytes[trailer + 6] == 2 && bytes[trailer + 7] == 2)
        // 300 elements: marker AF then the count as a 2-byte integer 11 012C.
        #expect(Array(bytes[8..<12]) == [0xAF, 0x11, 0x01, 0x2C])
        #expect(try BinaryPropertyList.decode(bytes) == value)
    }

    @Test func sharedObjectsAreDecodedOnce() throws {
        // n arrays, each holding the next one twice, around a boolean: 2ⁿ paths, n + 1 objects,
        // 2ⁿ⁺¹ − 1 values for whoever walks the result. Decoding takes time proportional to the
        // file, not to the paths; 15 levels (65 535 values) are within `maxValues`, 40 are not.
        let plist = PlistBytes(offsetSize: 1, referenceSize: 1)
        func doubling(_ levels: Int) -> [UInt8] {
            plist.assemble((0..<levels).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x09]])
        }
        var value = try BinaryPropertyList.decode(doubling(15))
        var depth = 0
        while case .array(let pair) = value {
            #expect(pair.count == 2)
            value = pair[0]
            depth += 1
        }
        #expect(depth == 15 && value == .bool(true))
        #expect(refusal(doubling(40)).contains("expands to more than 65536 values"))
    }

    // MARK: Hostile input

    static let minimal = PlistBytes(offsetSize: 1, referenceSize: 1).assemble([[0x09]])

    @Test func damagedHeadersAndTrailers() {
        #expect(refusal([]).contains("does not start with \"bplist00\" (found \"\")"))
        #expect(refusal(Array("bpl".utf8)).contains("is 3 bytes, shorter than the smallest binary plist (42 bytes)"))
        #expect(refusal(Array("bplist00".utf8)).contains("shorter than"))
        var wrong = Self.minimal
        wrong[6] = 0x31
        #expect(refusal(wrong).contains("does not start with \"bplist00\" (found \"bplist10\")"))
        #expect(
            refusal(Array("<?xml version=\"1.0\"?><plist><true/></plist>".utf8)).contains("not a binary property list"))
        let trailer = Self.minimal.count - 32
        var offsetSize = Self.minimal
        offsetSize[trailer + 6] = 0
        #expect(refusal(offsetSize).contains("offset size 0 is not 1…8"))
        var referenceSize = Self.minimal
        referenceSize[trailer + 7] = 9
        #expect(refusal(referenceSize).contains("object reference size 9 is not 1…8"))
        var count = Self.minimal
        count.replaceSubrange((trailer + 8)..<(trailer + 16), with: bigEndian(1 << 62, size: 8))
        #expect(refusal(count).contains("objects do not fit an offset table"))
        var zero = Self.minimal
        zero.replaceSubrange((trailer + 8)..<(trailer + 16), with: bigEndian(0, size: 8))
        #expect(refusal(zero).contains("0 objects do not fit"))
        var top = Self.minimal
        top.replaceSubrange((trailer + 16)..<(trailer + 24), with: bigEndian(5, size: 8))
        #expect(refusal(top).contains("top object 5 is out of range"))
        var table = Self.minimal
        table.replaceSubrange((trailer + 24)..<(trailer + 32), with: bigEndian(.max, size: 8))
        #expect(refusal(table).contains("outside the file"))
    }

    @Test func everyTruncationIsRefused() {
        let bytes = BinaryPropertyList.encode(
            .dictionary(["key": .array([.string("value"), .real(0.1), .integer(70_000)])]))
        for length in 0..<bytes.count {
            let message = refusal(Array(bytes.prefix(length)))
            #expect(!message.hasPrefix("accepted") && !message.hasPrefix("unexpected"), "\(length) bytes: \(message)")
        }
    }

    @Test func objectsThatLieAboutThemselves() {
        let plist = PlistBytes(offsetSize: 1, referenceSize: 1)
        // Offset pointing into the offset table (byte 9 is the table itself here).
        var pointing = plist.assemble([[0x09]])
        pointing[9] = 9
        #expect(refusal(pointing).contains("points at byte 9, outside the object area 8..<9"))
        // A reference to an object that does not exist.
        #expect(
            refusal(plist.assemble([[0xA1, 0x05]])).contains("reference 0 is to object 5, but there are 1 objects"))
        // An array containing itself, directly and through another array.
        #expect(refusal(plist.assemble([[0xA1, 0x00]])).contains("object 0 contains itself (a reference cycle)"))
        #expect(refusal(plist.assemble([[0xA1, 0x01], [0xA1, 0x00]])).contains("contains itself"))
        // A data object claiming 2⁴⁰ bytes, and a string running past the objects.
        #expect(
            refusal(plist.assemble([[0x4F, 0x13] + bigEndian(1 << 40, size: 8)])).contains("larger than the whole file")
        )
        #expect(
            refusal(plist.assemble([[0x5F, 0x10, 0x1E, 0x61]])).contains("needs 30 bytes from byte 11, past the end"))
        #expect(
            refusal(plist.assemble([[0x4F, 0x13] + bigEndian(UInt64(bitPattern: -5), size: 8)])).contains(
                "negative length"))
        #expect(refusal(plist.assemble([[0x4F, 0x23, 0, 0, 0, 0]])).contains("its length should follow as an integer"))
        // An array of 2⁴⁰ references.
        #expect(
            refusal(plist.assemble([[0xAF, 0x13] + bigEndian(1 << 40, size: 8)])).contains("larger than the whole file")
        )
    }

    @Test func wrongTypesAndEncodings() {
        let plist = PlistBytes(offsetSize: 1, referenceSize: 1)
        #expect(refusal(plist.assemble([[0x70]])).contains("unknown marker 0x70"))
        #expect(refusal(plist.assemble([[0x00]])).contains("marker 0x00 (null or fill) is not supported"))
        #expect(refusal(plist.assemble([[0xC0]])).contains("sets are not supported"))
        #expect(refusal(plist.assemble([[0x21, 0, 0]])).contains("neither 4 nor 8 bytes"))
        #expect(refusal(plist.assemble([[0x15] + Array(repeating: 0, count: 32)])).contains("no valid size"))
        #expect(refusal(plist.assemble([[0x89] + Array(repeating: 0, count: 10)])).contains("UID of 10 bytes"))
        #expect(refusal(plist.assemble([[0x52, 0x61, 0xE9]])).contains("ASCII string has byte 0xE9"))
        // UTF-16 with a lone high surrogate D83D.
        #expect(refusal(plist.assemble([[0x62, 0xD8, 0x3D, 0x00, 0x61]])).contains("unpaired surrogate"))
        // Dictionary keys must be strings and unique.
        #expect(refusal(plist.assemble([[0xD1, 0x01, 0x01], [0x09]])).contains("key 0 (object 1) is not a string"))
        #expect(
            refusal(plist.assemble([[0xD2, 0x01, 0x01, 0x02, 0x02], ascii("k"), [0x09]])).contains(
                "has the key \"k\" twice"))
        // 128-bit integers must fit 64 bits; those that do are read.
        #expect(
            refusal(plist.assemble([[0x14] + bigEndian(1, size: 8) + bigEndian(0, size: 8)])).contains(
                "does not fit 64 bits"))
        #expect(
            refusal(plist.assemble([[0x14] + bigEndian(0, size: 8) + bigEndian(42, size: 8)])) == "accepted an integer")
    }

    @Test func nestingIsBounded() {
        let plist = PlistBytes(offsetSize: 1, referenceSize: 1)
        // 100 arrays each holding the next: deeper than 64.
        var objects: [[UInt8]] = (0..<100).map { [0xA1, UInt8($0 + 1)] }
        objects.append([0x09])
        #expect(refusal(plist.assemble(objects)).contains("nested more than 64 containers deep"))
        // 60 is fine.
        var shallow: [[UInt8]] = (0..<60).map { [0xA1, UInt8($0 + 1)] }
        shallow.append([0x09])
        #expect(refusal(plist.assemble(shallow)) == "accepted an array")
    }

    @Test func randomDamageIsAnErrorNeverACrash() {
        // A deterministic generator, so a failure can be replayed.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        let original = FiltsterSettings(vignetteIntensity: 2.5, vignetteRadius: 0.75, sepiaIntensity: 0.3).archive()
        var refused = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0...(next() % 4) {
                let index = next() % bytes.count
                bytes[index] = UInt8(truncatingIfNeeded: next())
            }
            do { _ = try KeyedArchive.decode(bytes) } catch is AdjustmentError { refused += 1 } catch {
                Issue.record("\(error)")
            }
        }
        #expect(refused > 1000)
    }
}
