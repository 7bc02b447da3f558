import DarkroomTestSupport
import Foundation
import Testing

@testable import LibHeif

/// The boxes added to libheif's AVIF are added only to the layout libheif writes: anything else
/// (another file, a cut one, items it does not list) is refused as darkroom's own misuse, never
/// written half-edited.
@Suite struct HEIFToneMapLayoutTests {
    static let items = HEIFToneMapLayout.Items(primary: 1, toneMap: 3, gainMap: 2)

    static func refusal(_ bytes: [UInt8], items: HEIFToneMapLayout.Items = items) -> HEIFError? {
        do {
            _ = try HEIFToneMapLayout.finish(bytes, items: items, name: "preview.avif")
            return nil
        } catch { return error }
    }

    static func plainAVIF() throws -> [UInt8] {
        let pixels = [UInt8](repeating: 128, count: 64 * 48 * 3)
        return try pixels.withUnsafeBufferPointer { rgb throws(HEIFError) in
            try HEIFWriter.encode(
                rgb: rgb, width: 64, height: 48, settings: HEIFWriteSettings(quality: 50), name: "plain.avif")
        }
    }

    @Test func whatLibheifDidNotLayOutIsRefused() throws {
        let avif = try Self.plainAVIF()
        let jpeg = try Fixtures.bytes(of: URL(fileURLWithPath: Fixtures.apple("wedding.jpg")))
        let oversized: [UInt8] = [0, 0, 0x10, 0] + Array("ftyp".utf8) + Array(avif.dropFirst(8))
        let ftyp = Array(avif.prefix(Int(avif[3])))
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            HEIFToneMapLayout.bigEndian(UInt32(8 + payload.count)) + Array(type.utf8) + payload
        }
        let mdat = box("mdat", [1, 2, 3])
        let iloc = box("iloc", [0, 0, 0, 0, 0x44, 0, 0, 0])
        let cases: [(String, [UInt8])] = [
            ("a JPEG", Array(jpeg.prefix(4096))), ("nothing", []), ("a cut file", Array(avif.prefix(avif.count / 3))),
            ("a box larger than the file", oversized),
            ("a meta box without its version", ftyp + box("meta", []) + mdat),
            (
                "an iinf cut after its version",
                ftyp + box("meta", [0, 0, 0, 0] + box("iinf", [1, 0, 0, 0, 0, 0]) + iloc) + mdat
            ),
            (
                "an empty infe",
                ftyp + box("meta", [0, 0, 0, 0] + box("iinf", [0, 0, 0, 0, 0, 1] + box("infe", [])) + iloc) + mdat
            ),
        ]
        for (what, bytes) in cases {
            let error = Self.refusal(bytes)
            #expect(error?.code == .misuse && error?.whileWriting == true, "\(what): \(String(describing: error))")
        }
    }

    @Test func itemsTheFileDoesNotListAreRefused() throws {
        // A one-image AVIF lists its picture (1) only: no gain map or tmap item to group.
        let error = Self.refusal(try Self.plainAVIF())
        #expect(error?.code == .misuse && error?.message.contains("gain map") == true, "\(String(describing: error))")
    }
}
