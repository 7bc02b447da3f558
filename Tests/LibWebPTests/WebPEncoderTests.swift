import DarkroomTestSupport
import Foundation
import LibWebP
import Testing

/// Real photos written as WebP, read back by libwebp's own tools and exiftool.
@Suite struct WebPEncoderTests {
    /// A Nikon D810 photo (2048×1367) with an sRGB profile, EXIF and XMP.
    static let photoPath = Fixtures.apple("wedding.jpg")

    static func encode(_ image: DecodedImage, quality: Int = 80, metadata: WebPMetadata = WebPMetadata()) throws
        -> [UInt8]
    {
        try image.pixels.withUnsafeBufferPointer { rgb in
            try WebPEncoder.encode(
                rgb: rgb, width: image.width, height: image.height, settings: WebPSettings(quality: quality),
                metadata: metadata, name: "renders/wedding.webp")
        }
    }

    @Test func aPhotoDecodesWithDwebpAtItsSizeAndCloseToTheInput() throws {
        let photo = try DecodedImage(path: Self.photoPath)
        let webp = try Self.encode(photo)
        #expect(webp.starts(with: Array("RIFF".utf8)) && webp[8..<12].elementsEqual("WEBP".utf8))
        let decoded = try WebPTools.decode(webp)
        #expect(decoded.width == photo.width && decoded.height == photo.height)
        let psnr = decoded.psnr(against: photo)
        #expect(psnr >= 30, "PSNR \(psnr) dB at quality 80")
        // Smaller than the camera's own JPEG of the same pixels, or WebP would be pointless.
        #expect(webp.count < (try Fixtures.bytes(of: URL(fileURLWithPath: Self.photoPath))).count)
    }

    @Test func withoutMetadataTheFileIsPlainVP8() throws {
        let photo = try DecodedImage(path: Fixtures.exifSample("orientation/landscape_1.jpg").path)
        #expect(try WebPTools.chunks(Self.encode(photo)) == ["VP8 "])
    }

    @Test func metadataChunksAreWrittenAndReadBack() throws {
        let jpeg = try Fixtures.bytes(of: URL(fileURLWithPath: Self.photoPath))
        let icc = try #require(JPEGMetadata.iccProfile(of: jpeg))
        let exif = try #require(JPEGSegments.exifPayload(of: jpeg))
        let xmp = try #require(JPEGMetadata.xmp(of: jpeg))
        let photo = try DecodedImage(jpeg: jpeg)
        let webp = try Self.encode(photo, metadata: WebPMetadata(iccProfile: icc, exif: exif, xmp: xmp))

        #expect(try WebPTools.chunks(webp) == ["VP8X", "ICCP", "VP8 ", "EXIF", "XMP "])
        #expect(try WebPTools.decode(webp).width == photo.width)
        let tags = try WebPTools.withFile(webp, suffix: ".webp") { try ExifTool.tags([$0]) }
        #expect(tags["Make"] as? String == "NIKON CORPORATION")
        #expect(tags["Model"] as? String == "NIKON D810")
        #expect(tags["ProfileDescription"] as? String == "sRGB IEC61966-2.1")
        #expect(tags["Description"] as? String == "Bride Wedding day")
    }

    @Test func exifIsTheSameChunkFromAnAPP1PayloadOrItsTIFFPart() throws {
        let jpeg = try Fixtures.bytes(of: Fixtures.exifSample("Canon_40D.jpg"))
        let exif = try #require(JPEGSegments.exifPayload(of: jpeg))
        let photo = try DecodedImage(jpeg: jpeg)
        let fromAPP1 = try Self.encode(photo, metadata: WebPMetadata(exif: exif))
        let fromTIFF = try Self.encode(photo, metadata: WebPMetadata(exif: Array(exif.dropFirst(6))))
        #expect(fromAPP1 == fromTIFF)
        #expect(try WebPTools.chunks(fromAPP1) == ["VP8X", "VP8 ", "EXIF"])
        let tags = try WebPTools.withFile(fromAPP1, suffix: ".webp") { try ExifTool.tags([$0, "-Make", "-Model"]) }
        #expect(tags["Make"] as? String == "Canon")
        #expect(tags["Model"] as? String == "Canon EOS 40D")
    }
}
