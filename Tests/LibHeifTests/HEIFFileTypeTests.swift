import LibHeif
import Testing

@Suite struct HEIFFileTypeTests {
    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        var bytes: [UInt8] = [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
        for brand in compatible { bytes += Array(brand.utf8) }
        return bytes + [0, 0, 0, 8] + Array("meta".utf8)
    }

    @Test func phoneFilesAreRecognisedByTheirBrands() throws {
        #expect(try #require(HEIFFileType(prefix: Self.ftyp("heic", ["mif1", "heic"]))).kind == .heic)
        #expect(try #require(HEIFFileType(prefix: Self.ftyp("mif1", ["mif1", "heic", "miaf"]))).kind == .heic)
        #expect(try #require(HEIFFileType(prefix: Self.ftyp("avif", ["avif", "mif1", "miaf"]))).kind == .avif)
        #expect(try #require(HEIFFileType(prefix: Self.ftyp("mif1", ["avif", "mif1"]))).kind == .avif)
        #expect(try #require(HEIFFileType(prefix: Self.ftyp("mif1", ["mif1"]))).kind == .heif)
        #expect(try #require(HEIFFileType(prefix: Self.ftyp("heix", []))).fileExtension == "heic")
    }

    @Test func otherISOMediaIsNotHEIF() throws {
        let mp4 = try #require(HEIFFileType(prefix: Self.ftyp("isom", ["isom", "iso2", "mp41"])))
        #expect(mp4.kind == .otherISOMedia && !mp4.isHEIF)
        #expect(mp4.majorBrand == "isom" && mp4.compatibleBrands == ["isom", "iso2", "mp41"])
    }

    @Test func filesWithoutAnFtypBoxAreNotISOMedia() {
        #expect(HEIFFileType(prefix: [0xff, 0xd8, 0xff, 0xe1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == nil)
        #expect(HEIFFileType(prefix: Array("ftyp".utf8)) == nil)
        #expect(HEIFFileType(prefix: []) == nil)
        // A box size below the 16 bytes an ftyp needs is not one.
        var short = Self.ftyp("heic", [])
        short[3] = 9
        #expect(HEIFFileType(prefix: short) == nil)
    }
}
