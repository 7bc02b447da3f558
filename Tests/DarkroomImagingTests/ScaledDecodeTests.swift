import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import JPEGTurbo
import Testing

/// A thumbnail's decode: libjpeg's DCT scaling through the streaming renderer.
@Suite struct ScaledDecodeTests {
    @Test func theSmallestScaleThatReachesTheLongestSide() {
        #expect(Renderer.decodeScaleEighths(toReach: 480, from: PixelSize(width: 6000, height: 4000)) == 1)
        #expect(Renderer.decodeScaleEighths(toReach: 480, from: PixelSize(width: 2048, height: 1536)) == 2)
        #expect(Renderer.decodeScaleEighths(toReach: 480, from: PixelSize(width: 600, height: 450)) == 7)
        #expect(Renderer.decodeScaleEighths(toReach: 480, from: PixelSize(width: 300, height: 200)) == 8)
    }

    @Test func aScaledRenderIsUprightAtTheScaledSize() throws {
        // Stored 450×600 with orientation 6: upright 600×450; at 7/8, 394×525 stored, 525×394 upright.
        let photo = try Fixtures.bytes(of: Fixtures.exifSample("orientation/landscape_6.jpg"))
        var request = RenderRequest(operations: [], spillDirectory: "/tmp")
        request.decodeScaleEighths = 7
        let output = MemoryUpload()
        let result = try Renderer.render(
            request, from: ChunkedSource(photo, maxChunk: 1 << 16), to: output, orientation: .right)
        #expect(result.outputSize == PixelSize(width: 525, height: 394))
        let decoder = try JPEGDecoder(source: ChunkedSource(try #require(output.committed), maxChunk: 1 << 16))
        #expect(decoder.header.width == 525 && decoder.header.height == 394)
    }
}
