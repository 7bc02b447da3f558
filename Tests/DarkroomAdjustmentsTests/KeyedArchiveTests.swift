import Testing

@testable import DarkroomAdjustments

@Suite struct KeyedArchiveTests {
    static let dictionaryClass: PropertyListValue = .dictionary([
        "$classname": .string("NSDictionary"), "$classes": .array([.string("NSDictionary"), .string("NSObject")]),
    ])
    static let arrayClass: PropertyListValue = .dictionary([
        "$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")]),
    ])

    /// A keyed archive around `objects` (which must start with "$null"), as a binary plist.
    func archive(
        _ objects: [PropertyListValue], root: UInt64 = 1,
        archiver: PropertyListValue = .string("NSKeyedArchiver"), version: PropertyListValue = .integer(100_000)
    ) -> [UInt8] {
        BinaryPropertyList.encode(
            .dictionary([
                "$version": version, "$archiver": archiver, "$top": .dictionary(["root": .uid(root)]),
                "$objects": .array(objects),
            ]))
    }

    func dictionary(keys: [UInt64], values: [UInt64], classUID: UInt64) -> PropertyListValue {
        .dictionary([
            "NS.keys": .array(keys.map { .uid($0) }), "NS.objects": .array(values.map { .uid($0) }),
            "$class": .uid(classUID),
        ])
    }

    func refusal(_ bytes: [UInt8]) -> String {
        do {
            return "accepted \(try KeyedArchive.decode(bytes).kind)"
        } catch let error as AdjustmentError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    // MARK: Archives written by hand

    @Test(arguments: [(2, 1), (2, 2)])
    func handWrittenFiltsterArchive(offsetSize: Int, referenceSize: Int) throws {
        let bytes = HandWrittenArchives.filtster(
            PlistBytes(offsetSize: offsetSize, referenceSize: referenceSize),
            sepia: 0.25, vignette: 2.5, radius: 0.75)
        #expect(
            try KeyedArchive.decode(bytes)
                == .dictionary([
                    "sepiaIntensity": .real(0.25), "vignetteIntensity": .real(2.5), "vignetteRadius": .real(0.75),
                ]))
        #expect(
            try FiltsterSettings(archive: bytes)
                == FiltsterSettings(vignetteIntensity: 2.5, vignetteRadius: 0.75, sepiaIntensity: 0.25))
    }

    @Test(arguments: [(1, 1), (2, 2)])
    func handWrittenMutableDictionaryWithOneKey(offsetSize: Int, referenceSize: Int) throws {
        let bytes = HandWrittenArchives.sepiaOnly(
            PlistBytes(offsetSize: offsetSize, referenceSize: referenceSize), sepia: 0.4)
        #expect(try KeyedArchive.decode(bytes) == .dictionary(["sepiaIntensity": .real(0.4)]))
        // The missing keys keep Filtster's defaults.
        #expect(
            try FiltsterSettings(archive: bytes)
                == FiltsterSettings(vignetteIntensity: 1, vignetteRadius: 0.5, sepiaIntensity: 0.4))
    }

    // MARK: The writer

    @Test func writerFollowsNSKeyedArchiversLayout() throws {
        let bytes = FiltsterSettings(vignetteIntensity: 2.5, vignetteRadius: 0.75, sepiaIntensity: 0.25).archive()
        guard case .dictionary(let top) = try BinaryPropertyList.decode(bytes),
            case .array(let objects)? = top["$objects"]
        else {
            Issue.record("not a keyed archive")
            return
        }
        #expect(top.keys == ["$version", "$archiver", "$top", "$objects"])
        #expect(top["$version"] == .integer(100_000) && top["$archiver"] == .string("NSKeyedArchiver"))
        #expect(top["$top"] == .dictionary(["root": .uid(1)]))
        // $null, the dictionary, its three keys (sorted), its three values, its class.
        #expect(objects.count == 9)
        #expect(objects[0] == .string("$null"))
        #expect(objects[1] == dictionary(keys: [2, 3, 4], values: [5, 6, 7], classUID: 8))
        #expect(
            Array(objects[2...4]) == [
                .string("sepiaIntensity"), .string("vignetteIntensity"), .string("vignetteRadius"),
            ])
        #expect(Array(objects[5...7]) == [.real(0.25), .real(2.5), .real(0.75)])
        #expect(objects[8] == Self.dictionaryClass)
    }

    @Test func valuesRoundTrip() throws {
        let value: ArchivedValue = .dictionary([
            "numbers": .array([.integer(3), .real(0.1), .bool(true), .integer(-7)]),
            "text": .string("Grüße"), "bytes": .data([1, 2, 3]), "nothing": .null,
            "nested": .dictionary(["empty": .array([]), "same": .string("Grüße")]),
            "color": .object(
                className: "CIColor", classes: ["CIColor", "NSObject"],
                fields: ["red": .real(0), "space": .string("sRGB")]),
        ])
        #expect(try KeyedArchive.decode(KeyedArchive.encode(value)) == value)
    }

    @Test func sharedEntriesAndFoundationStringAndDataObjects() throws {
        // Two keys pointing at the same value; NSMutableString and NSData objects.
        let stringClass: PropertyListValue = .dictionary([
            "$classname": .string("NSMutableString"),
            "$classes": .array([.string("NSMutableString"), .string("NSString"), .string("NSObject")]),
        ])
        let dataClass: PropertyListValue = .dictionary([
            "$classname": .string("NSData"), "$classes": .array([.string("NSData"), .string("NSObject")]),
        ])
        let bytes = archive([
            .string("$null"), dictionary(keys: [2, 3, 4, 5], values: [6, 6, 7, 8], classUID: 9),
            .string("a"), .string("b"), .string("c"), .string("d"), .real(0.5),
            .dictionary(["NS.string": .string("text"), "$class": .uid(10)]),
            .dictionary(["NS.data": .data([9, 8]), "$class": .uid(11)]),
            Self.dictionaryClass, stringClass, dataClass,
        ])
        #expect(
            try KeyedArchive.decode(bytes)
                == .dictionary(["a": .real(0.5), "b": .real(0.5), "c": .string("text"), "d": .data([9, 8])]))
    }

    @Test func otherClassesStayData() throws {
        // An NSURL is described, never created: its class name and fields come back as data.
        let bytes = archive([
            .string("$null"), .dictionary(["NS.relative": .uid(2), "NS.base": .uid(0), "$class": .uid(3)]),
            .string("file:///etc/passwd"),
            .dictionary(["$classname": .string("NSURL"), "$classes": .array([.string("NSURL"), .string("NSObject")])]),
        ])
        #expect(
            try KeyedArchive.decode(bytes)
                == .object(
                    className: "NSURL", classes: ["NSURL", "NSObject"],
                    fields: ["NS.relative": .string("file:///etc/passwd"), "NS.base": .null]))
    }

    /// Found by fuzz-keyed-archive: a class description without `$classes` read as no classes,
    /// which the writer then filled in, so archiving what was read did not read back the same.
    @Test func aClassWithoutClassesReadsAsItselfAndRoundTrips() throws {
        let bytes = archive([
            .string("$null"), .dictionary(["tint": .real(0.5), "$class": .uid(2)]),
            .dictionary(["$classname": .string("CIColor")]),
        ])
        let value = try KeyedArchive.decode(bytes)
        #expect(value == .object(className: "CIColor", classes: ["CIColor"], fields: ["tint": .real(0.5)]))
        #expect(try KeyedArchive.decode(KeyedArchive.encode(value)) == value)
    }

    // MARK: Hostile archives

    @Test func wrongEnvelope() {
        let objects: [PropertyListValue] = [.string("$null"), .string("root")]
        #expect(refusal(BinaryPropertyList.encode(.array([]))).contains("its top object is not a dictionary"))
        #expect(
            refusal(archive(objects, archiver: .string("NSArchiver"))).contains(
                "$archiver is \"NSArchiver\", expected \"NSKeyedArchiver\""))
        #expect(refusal(archive(objects, version: .integer(99))).contains("$version is 99, expected 100000"))
        #expect(refusal(archive(objects, version: .string("100000"))).contains("$version is \"100000\""))
        #expect(refusal(archive([.string("root")], root: 0)).contains("$objects[0] must be the string \"$null\""))
        #expect(
            refusal(
                BinaryPropertyList.encode(
                    .dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000)]))
            )
            .contains("$objects is missing"))
        #expect(
            refusal(
                BinaryPropertyList.encode(
                    .dictionary([
                        "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
                        "$objects": .array([.string("$null")]),
                        "$top": .dictionary(["root": .integer(1)]),
                    ]))
            ).contains("\"root\" is a UID"))
        #expect(refusal([1, 2, 3]).hasPrefix("binary plist does not start with"))
    }

    @Test func referencesOutOfRangeAndCycles() {
        #expect(
            refusal(archive([.string("$null")], root: 7)).contains("root refers to UID 7, but $objects has 1 entries"))
        let outOfRange = archive([
            .string("$null"), dictionary(keys: [2], values: [40], classUID: 3), .string("k"), Self.dictionaryClass,
        ])
        #expect(refusal(outOfRange).contains("root → \"k\" refers to UID 40, but $objects has 4 entries"))
        // An NSArray containing itself, and two dictionaries containing each other.
        let selfish = archive([
            .string("$null"), .dictionary(["NS.objects": .array([.uid(1)]), "$class": .uid(2)]), Self.arrayClass,
        ])
        #expect(refusal(selfish).contains("which contains itself (a reference cycle)"))
        let mutual = archive([
            .string("$null"), dictionary(keys: [3], values: [2], classUID: 4),
            dictionary(keys: [3], values: [1], classUID: 4),
            .string("other"), Self.dictionaryClass,
        ])
        #expect(refusal(mutual).contains("contains itself"))
    }

    @Test func deepNestingIsBounded() {
        // 40 NSArrays each holding the next.
        var objects: [PropertyListValue] = [.string("$null")]
        for level in 1...40 {
            objects.append(.dictionary(["NS.objects": .array([.uid(UInt64(level + 1))]), "$class": .uid(42)]))
        }
        objects.append(.string("bottom"))
        objects.append(Self.arrayClass)
        #expect(refusal(archive(objects)).contains("is nested more than 32 objects deep"))
    }

    @Test func malformedObjects() {
        let base: [PropertyListValue] = [.string("$null")]
        #expect(
            refusal(
                archive(
                    base + [
                        dictionary(keys: [2, 3], values: [2], classUID: 4), .string("a"), .string("b"),
                        Self.dictionaryClass,
                    ])
            )
            .contains("has 2 NS.keys but 1 NS.objects"))
        #expect(
            refusal(archive(base + [dictionary(keys: [2], values: [2], classUID: 3), .real(1), Self.dictionaryClass]))
                .contains("key 0 is not a string"))
        #expect(
            refusal(
                archive(
                    base + [
                        dictionary(keys: [2, 3], values: [2, 2], classUID: 4), .string("a"), .string("a"),
                        Self.dictionaryClass,
                    ])
            )
            .contains("has the key \"a\" twice"))
        #expect(
            refusal(archive(base + [.dictionary(["NS.keys": .array([]), "NS.objects": .array([])])]))
                .contains("is a dictionary without a $class UID"))
        #expect(
            refusal(archive(base + [.dictionary(["NS.objects": .array([]), "$class": .uid(2)]), .string("NSArray")]))
                .contains("is not a {$classname, $classes} entry"))
        #expect(
            refusal(archive(base + [.dictionary(["NS.objects": .array([]), "$class": .uid(0)])]))
                .contains("is not a {$classname, $classes} entry"))
        #expect(
            refusal(
                archive(
                    base + [.dictionary(["NS.objects": .array([.integer(1)]), "$class": .uid(2)]), Self.arrayClass])
            )
            .contains("NS.objects[0] is an integer, expected a UID"))
        #expect(
            refusal(archive(base + [.dictionary(["NS.objects": .uid(1), "$class": .uid(2)]), Self.arrayClass]))
                .contains("NS.objects is a UID, expected an array of UIDs"))
        #expect(
            refusal(
                archive(
                    base + [
                        .dictionary(["NS.objects": .array([]), "NS.extra": .integer(1), "$class": .uid(2)]),
                        Self.arrayClass,
                    ])
            )
            .contains("unexpected field \"NS.extra\""))
        #expect(refusal(archive(base + [.array([.uid(0)])])).contains("$objects[1] (root) is an array"))
        #expect(refusal(archive(base + [.uid(0)])).contains("is a UID"))
        let badClasses: PropertyListValue = .dictionary([
            "$classname": .string("NSArray"), "$classes": .string("NSArray"),
        ])
        #expect(
            refusal(archive(base + [.dictionary(["NS.objects": .array([]), "$class": .uid(2)]), badClasses]))
                .contains("$classes is a string, expected an array of strings"))
        // A class description used as a value is not an object.
        #expect(refusal(archive(base + [Self.dictionaryClass])).contains("without a $class UID"))
    }
}
