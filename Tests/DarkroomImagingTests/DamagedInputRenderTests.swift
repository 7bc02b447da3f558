import ByteStreams
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

@testable import DarkroomImaging

/// A render of an input that only lacks its EOI marker, or carries bytes after it, is the
/// render of the intact file plus a warning naming the input; a render of a cut or corrupt
/// input fails and publishes nothing, neither the render nor its display copy.
@Suite struct DamagedInputRenderTests {
    let operations: [ImageOperation] = [.sepia(intensity: 0.8), .vignette(intensity: 1, radius: 0.8)]

    /// Writes `bytes` as `name` in `folder` and renders it there (with a display copy).
    func render(
        _ bytes: [UInt8], name: String, in folder: TemporaryFolder,
        operations: [ImageOperation]? = nil
    ) throws -> (result: RenderResult, output: Data) {
        let input = folder.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let request = RenderRequest(operations: operations ?? self.operations, spillDirectory: folder.path)
        let output = folder.file("render-of-\(name)")
        let result = try Renderer.render(
            request, input: input, output: output, displayAt: folder.file("display-of-\(name)"),
            orientation: .up)
        return (result, try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    @Test(arguments: [false, true])
    func aMissingEOIOrATrailerRendersTheSameImageWithAWarning(progressive: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let baseline = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
        let intact = progressive ? try DamagedJPEGs.progressiveCopy(of: baseline) : baseline
        let reference = try render(intact, name: "intact.jpg", in: folder)
        #expect(reference.result.warnings.isEmpty)

        let cut = DamagedJPEGs.withoutEOI(intact)
        let withoutEOI = try render(cut, name: "no-eoi.jpg", in: folder)
        #expect(
            withoutEOI.result.warnings == [
                .input(InputWarning(.missingEOI(fileLength: cut.count)), object: folder.file("no-eoi.jpg"))
            ])
        #expect(withoutEOI.output == reference.output, "the same pixels, so the same bytes")

        let trailer = try render(DamagedJPEGs.withTrailingBytes(intact, count: 100), name: "trailer.jpg", in: folder)
        #expect(
            trailer.result.warnings == [
                .input(
                    InputWarning(.trailingBytes(count: 100, eoiEnd: intact.count)), object: folder.file("trailer.jpg"))
            ])
        #expect(trailer.output == reference.output)
        #expect(trailer.result.warnings.map(\.code) == ["jpeg.trailing_bytes"])
        #expect(
            trailer.result.warnings.first?.description.hasPrefix(
                "jpeg.trailing_bytes: \(folder.file("trailer.jpg")): 100 bytes") == true)
    }

    /// Junk between header markers, and an ICC profile whose chunks do not fit together: the
    /// render of the clean file, byte for byte, with a warning naming the input.
    @Test func strayBytesAndUnreadableICCChunksRenderTheCleanFilesImage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let intact = try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg"))
        let reference = try render(intact, name: "intact.jpg", in: folder)

        let junk = DamagedJPEGs.withJunk(DamagedJPEGs.junk(17), beforeHeaderMarker: 0xDB, in: intact)
        let dqt = try #require(DamagedJPEGs.headerMarkers(in: intact).first { $0.marker == 0xDB }).offset + 17
        let junkRender = try render(junk, name: "junk.jpg", in: folder)
        #expect(
            junkRender.result.warnings == [
                .input(
                    InputWarning(.extraneousBytes(count: 17, marker: 0xDB, markerOffset: dqt, runs: 1)),
                    object: folder.file("junk.jpg"))
            ])
        #expect(
            junkRender.result.warnings.first?.byteCount == 17 && junkRender.result.warnings.first?.byteOffset == dqt)
        #expect(junkRender.output == reference.output)

        let profile = try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("icc/apple-display-p3.icc"))
        let tagged = try render(
            DamagedJPEGs.withICCChunks(profile, numbering: [(1, 2), (2, 2)], in: intact), name: "tagged.jpg",
            in: folder)
        #expect(tagged.result.warnings.isEmpty)
        #expect(try JPEGDecoder(source: ChunkedSource([UInt8](tagged.output))).header.iccProfile == profile)
        let broken = try render(
            DamagedJPEGs.withICCChunks(profile, numbering: [(1, 3), (3, 3)], in: intact), name: "broken.jpg",
            in: folder)
        #expect(broken.result.warnings.map(\.code) == ["icc.unreadable"])
        #expect(broken.result.warnings.first?.object == folder.file("broken.jpg"))
        #expect(try JPEGDecoder(source: ChunkedSource([UInt8](broken.output))).header.iccProfile == nil, "untagged")
        #expect(broken.output == reference.output, "the same pixels, no profile")
    }

    enum Spoilt: String, CaseIterable {
        case cutInScan, corruptScanData, progressiveCutBetweenScans, progressiveCutInScan, junkInScanData,
            junkAfterScanData

        func apply(to intact: [UInt8]) throws -> [UInt8] {
            switch self {
            case .cutInScan: DamagedJPEGs.cutInScan(intact)
            case .corruptScanData: DamagedJPEGs.withCorruptScanData(intact)
            case .progressiveCutBetweenScans:
                DamagedJPEGs.cutAfterScan(try DamagedJPEGs.progressiveCopy(of: intact), scan: 6)
            case .progressiveCutInScan: DamagedJPEGs.cutInScan(try DamagedJPEGs.progressiveCopy(of: intact), scan: 2)
            case .junkInScanData: DamagedJPEGs.withJunk(DamagedJPEGs.junk(40), insideScan: 0, in: intact)
            case .junkAfterScanData: DamagedJPEGs.withJunk(DamagedJPEGs.junk(40), afterScan: 0, in: intact)
            }
        }

        var damage: JPEGError.Damage {
            switch self {
            case .cutInScan, .progressiveCutInScan: .cutInScanData
            case .corruptScanData, .junkInScanData, .junkAfterScanData: .corruptScanData
            case .progressiveCutBetweenScans: .cutBetweenScans
            }
        }
    }

    @Test(arguments: Spoilt.allCases)
    func aDamagedInputFailsAndPublishesNothing(_ spoilt: Spoilt) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let bytes = try spoilt.apply(to: Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg")))
        let error = #expect(throws: RenderError.self) { _ = try render(bytes, name: "damaged.jpg", in: folder) }
        guard let codec = error?.codecError, let jpeg = codec.cause as? JPEGError else {
            Issue.record("expected a JPEG error, got \(String(describing: error))")
            return
        }
        #expect(
            jpeg.code == .damaged && jpeg.damage == spoilt.damage && jpeg.object == folder.file("damaged.jpg"),
            "\(jpeg)")
        #expect(folder.contents() == ["damaged.jpg"], "nothing published: \(folder.contents())")
    }

    /// The rows below a crop are never produced, but their data is still decoded: a cut there
    /// fails the render too.
    @Test func aCropAboveTheCutStillFails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cut = DamagedJPEGs.cutInScan(try Fixtures.bytes(of: Fixtures.exifSample("gps/DSCN0010.jpg")))
        let error = #expect(throws: RenderError.self) {
            _ = try render(
                cut, name: "cut.jpg", in: folder, operations: [.crop(PixelRect(x: 0, y: 0, width: 64, height: 48))])
        }
        guard let codec = error?.codecError, let jpeg = codec.cause as? JPEGError else {
            Issue.record("expected a JPEG error, got \(String(describing: error))")
            return
        }
        #expect(jpeg.damage == .cutInScanData && jpeg.byteOffset == cut.count)
        #expect(folder.contents() == ["cut.jpg"])
    }
}
