import LibWebP
import Testing

/// Inputs refused before libwebp is called: each with its code, the object's name, and no
/// libwebp error as the cause (libwebp itself would have refused some with one, or, for a
/// short buffer, read past it).
@Suite struct WebPRefusalTests {
    static func refusal(
        width: Int, height: Int, bytes: Int? = nil, quality: Int = 80, method: Int = 4,
        metadata: WebPMetadata = WebPMetadata()
    ) -> WebPError? {
        let pixels = [UInt8](repeating: 128, count: bytes ?? max(0, width * height * 3))
        do {
            _ = try pixels.withUnsafeBufferPointer { rgb throws(WebPError) in
                try WebPEncoder.encode(
                    rgb: rgb, width: width, height: height, settings: WebPSettings(quality: quality, method: method),
                    metadata: metadata, name: "renders/refused.webp")
            }
            return nil
        } catch {
            return error
        }
    }

    static func expectRefused(_ error: WebPError?, _ code: WebPError.Code, mentioning word: String) {
        #expect(error?.code == code)
        #expect(error?.name == "renders/refused.webp")
        #expect(error?.cause == nil)
        #expect(error?.description.contains(word) == true, "\(String(describing: error))")
    }

    @Test(arguments: [(0, 0), (16384, 1), (1, 16384), (-1, 10)])
    func sizesOutsideWebPsLimitAreRefused(width: Int, height: Int) {
        Self.expectRefused(Self.refusal(width: width, height: height, bytes: 48), .invalidSize, mentioning: "16383")
    }

    @Test func theLargestSideWebPHoldsIsWritten() {
        #expect(Self.refusal(width: 16383, height: 1) == nil)
    }

    @Test(arguments: [-1, 1, 47])
    func aBufferOfTheWrongLengthIsRefused(offBy difference: Int) {
        Self.expectRefused(
            Self.refusal(width: 4, height: 4, bytes: 48 + difference), .invalidBuffer, mentioning: "\(48 + difference)")
    }

    @Test(arguments: [0, 101, -5])
    func qualityOutside1To100IsRefused(quality: Int) {
        Self.expectRefused(Self.refusal(width: 4, height: 4, quality: quality), .invalidSettings, mentioning: "quality")
    }

    @Test(arguments: [-1, 7])
    func methodOutside0To6IsRefused(method: Int) {
        Self.expectRefused(Self.refusal(width: 4, height: 4, method: method), .invalidSettings, mentioning: "method")
    }

    @Test func malformedMetadataIsRefused() {
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        let cases: [(WebPMetadata, String)] = [
            (WebPMetadata(iccProfile: [UInt8](repeating: 0, count: 200)), "ICC"),
            (WebPMetadata(exif: Array("JFIF".utf8) + tiff), "EXIF"),
            (WebPMetadata(xmp: []), "XMP"),
            (WebPMetadata(xmp: [UInt8](repeating: 0x20, count: WebPMetadata.maxTotalBytes + 1)), "bytes"),
        ]
        for (metadata, word) in cases {
            Self.expectRefused(
                Self.refusal(width: 4, height: 4, metadata: metadata), .invalidMetadata, mentioning: word)
        }
        #expect(Self.refusal(width: 4, height: 4, metadata: WebPMetadata(exif: tiff)) == nil)
    }
}
