import DarkroomImaging
import Testing

@testable import DarkroomAdjustments

/// Every bound of the adjustment parsers (docs/hostile-input.md), at the bound and one past it.
@Suite struct LimitTests {
    let registry = EditorRegistry.standard

    /// `plist` grown to exactly `size` bytes by unused bytes before its offset table (which the
    /// trailer then points past): what a reader sees is the same objects in a bigger file.
    func padded(_ plist: [UInt8], to size: Int) -> [UInt8] {
        let trailer = plist.count - 32
        let table = Int(BinaryPropertyListReader.uint64(plist, at: trailer + 24))
        let padding = size - plist.count
        var bytes = Array(plist[..<table]) + [UInt8](repeating: 0, count: padding) + Array(plist[table...])
        bytes.replaceSubrange((bytes.count - 8)..., with: bigEndian(UInt64(table + padding), size: 8))
        return bytes
    }

    func plistRefusal(_ bytes: [UInt8]) -> String {
        refusal { _ = try BinaryPropertyList.decode(bytes) }
    }

    // MARK: Binary plists

    @Test func plistBytes() throws {
        let plist = BinaryPropertyList.encode(.array([.string("a"), .integer(1)]))
        #expect(
            try BinaryPropertyList.decode(padded(plist, to: BinaryPropertyList.maxBytes))
                == .array([.string("a"), .integer(1)]))
        #expect(
            refusal(code: .dataTooLarge) {
                _ = try BinaryPropertyList.decode(padded(plist, to: BinaryPropertyList.maxBytes + 1))
            }
                == "binary plist is 65537 bytes; the limit is 65536")
    }

    @Test func plistDepth() {
        let plist = PlistBytes(offsetSize: 1, referenceSize: 1)
        // n arrays each holding the next, around one boolean: the boolean is n deep.
        func nested(_ depth: Int) -> [UInt8] {
            plist.assemble((0..<depth).map { [0xA1, UInt8($0 + 1)] } + [[0x09]])
        }
        #expect(plistRefusal(nested(BinaryPropertyList.maxDepth)) == "accepted")
        #expect(plistRefusal(nested(BinaryPropertyList.maxDepth + 1)).contains("nested more than 64 containers deep"))
    }

    @Test func plistValues() {
        // An array of 255 references to one array of 256 references to one boolean expands to
        // 1 + 255 × 257 = 65 536 values from 540 bytes; one more reference to the boolean is 65 537.
        let plist = PlistBytes(offsetSize: 2, referenceSize: 1)
        func array(_ references: [UInt8]) -> [UInt8] {
            let count = references.count
            return [0xAF] + (count < 256 ? [0x10, UInt8(count)] : [0x11, UInt8(count >> 8), UInt8(count & 0xFF)])
                + references
        }
        func shared(extra: Int) -> [UInt8] {
            let outer = array([UInt8](repeating: 1, count: 255) + [UInt8](repeating: 2, count: extra))
            let inner = array([UInt8](repeating: 2, count: 256))
            return plist.assemble([outer, inner, [0x09]])
        }
        #expect(BinaryPropertyList.maxValues == 65_536)
        #expect(plistRefusal(shared(extra: 0)) == "accepted")
        #expect(plistRefusal(shared(extra: 1)).contains("object 0 at byte 8 expands to more than 65536 values"))
    }

    // MARK: Keyed archives

    /// A keyed archive whose root is an NSArray of `outer` UIDs of one NSArray of `inner` UIDs
    /// of one string, plus `extra` UIDs of the string.
    func sharedArchive(outer: Int, inner: Int, extra: Int = 0) -> [UInt8] {
        let arrayClass: PropertyListValue = .dictionary([
            "$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")]),
        ])
        let objects: [PropertyListValue] = [
            .string("$null"),
            .dictionary([
                "NS.objects": .array(Array(repeating: .uid(2), count: outer) + Array(repeating: .uid(3), count: extra)),
                "$class": .uid(4),
            ]),
            .dictionary(["NS.objects": .array(Array(repeating: .uid(3), count: inner)), "$class": .uid(4)]),
            .string("leaf"),
            arrayClass,
        ]
        return BinaryPropertyList.encode(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array(objects),
            ]))
    }

    func archiveRefusal(_ bytes: [UInt8]) -> String {
        refusal { _ = try KeyedArchive.decode(bytes) }
    }

    @Test func archiveValues() {
        // 1 + 255 × (1 + 256) = 65 536.
        #expect(KeyedArchive.maxValues == 65_536)
        #expect(archiveRefusal(sharedArchive(outer: 255, inner: 256)) == "accepted")
        #expect(
            archiveRefusal(sharedArchive(outer: 255, inner: 256, extra: 1)).contains(
                "expands to more than 65536 values"))
    }

    @Test func archiveDepth() {
        // n NSArrays each holding the next, around a string: the string is n deep.
        func nested(_ depth: Int) -> [UInt8] {
            var objects: [PropertyListValue] = [.string("$null")]
            for level in 1...depth {
                objects.append(
                    .dictionary(["NS.objects": .array([.uid(UInt64(level + 1))]), "$class": .uid(UInt64(depth + 2))]))
            }
            objects.append(.string("bottom"))
            objects.append(.dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray")])]))
            return BinaryPropertyList.encode(
                .dictionary([
                    "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                    "$top": .dictionary(["root": .uid(1)]),
                    "$objects": .array(objects),
                ]))
        }
        #expect(archiveRefusal(nested(KeyedArchive.maxDepth)) == "accepted")
        #expect(archiveRefusal(nested(KeyedArchive.maxDepth + 1)).contains("is nested more than 32 objects deep"))
    }

    // MARK: Editors

    @Test func archivedEditorDataBytes() throws {
        for (identifier, data) in [
            (FiltsterSettings.identifier, FiltsterSettings().archive()),
            (ChromaKeySettings.identifier, ChromaKeySettings().archive()),
        ] {
            let limit = try registry.editor(for: identifier, version: "1.0").maxDataBytes
            #expect(limit == 65_536)
            #expect(
                try registry.operations(identifier: identifier, version: "1.0", data: padded(data, to: limit))
                    == registry.operations(identifier: identifier, version: "1.0", data: data))
            #expect(
                refusal(code: .dataTooLarge) {
                    _ = try registry.operations(
                        identifier: identifier, version: "1.0", data: padded(data, to: limit + 1))
                } == "\(identifier) data is 65537 bytes; the limit is 65536")
        }
    }

    func pipeline(_ operations: Int) -> [UInt8] {
        Array(
            (#"{"operations":["# + Array(repeating: #"{"op":"sepia"}"#, count: operations).joined(separator: ",") + "]}")
                .utf8)
    }

    @Test func pipelineOperations() throws {
        #expect(try PipelineFormat.decode(pipeline(PipelineFormat.maxOperations)).count == 64)
        #expect(
            refusal(code: .dataTooLarge) { _ = try PipelineFormat.decode(pipeline(PipelineFormat.maxOperations + 1)) }
                == "io.darkroom.pipeline data has 65 operations; the limit is 64")
    }

    @Test func pipelineBytes() throws {
        // Whitespace is JSON too: the same two operations in exactly the limit, and one byte more.
        let data = pipeline(2)
        let atLimit = data + Array(repeating: UInt8(ascii: " "), count: PipelineFormat.maxDataBytes - data.count)
        #expect(try PipelineFormat.decode(atLimit).count == 2)
        #expect(
            refusal(code: .dataTooLarge) { _ = try PipelineFormat.decode(atLimit + [UInt8(ascii: " ")]) }
                == "io.darkroom.pipeline data is 262145 bytes; the limit is 262144")
    }

    @Test func pipelineNesting() {
        // The document, the list, the operation and the matrix are 4 levels; each "[" adds one.
        func matrix(_ depth: Int) -> [UInt8] {
            let value = String(repeating: "[", count: depth - 3) + "1" + String(repeating: "]", count: depth - 3)
            return Array(#"{"operations":[{"op":"colorMatrix","matrix":\#(value)}]}"#.utf8)
        }
        #expect(
            refusal(code: .invalidParameter) { _ = try PipelineFormat.decode(matrix(PipelineFormat.maxNesting)) }
                .contains(#"parameter "matrix" must be 3 rows of 3 numbers"#))
        #expect(
            refusal(code: .malformedData) { _ = try PipelineFormat.decode(matrix(PipelineFormat.maxNesting + 1)) }
                == "io.darkroom.pipeline data nests arrays and objects 9 deep at byte 49; the limit is 8")
        // Brackets inside strings are text.
        #expect(JSONValue.nesting(of: Array(#"["[[[[[[[[[[\"[[[[[["]"#.utf8), over: 1) == nil)
    }

    // MARK: Versions

    @Test func versionLength() {
        let atLimit = "1.0.0-" + String(repeating: "a", count: SemanticVersion.maxLength - 6)
        #expect(SemanticVersion(atLimit)?.prerelease.first?.count == 249)
        #expect(SemanticVersion(atLimit + "a") == nil)
    }
}
