import ByteStreams
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import JPEGTurbo
import Testing

/// Renders through the seam: what the input stream delivers, and how, never changes the
/// bytes; a failing stream fails the render with an error naming its object and publishes
/// nothing, leaving no temporary behind.
@Suite struct StreamRenderTests {
    let input = Fixtures.exifSample("gps/DSCN0010.jpg")
    let operations: [ImageOperation] = [
        .exposure(ev: 0.5), .vignette(intensity: 1.5, radius: 0.8), .sepia(intensity: 0.7),
    ]

    func request(threads: Int = 1, folder: TemporaryFolder) -> RenderRequest {
        var request = RenderRequest(
            operations: operations, limits: RenderLimits(memoryBudget: 1 << 20), spillDirectory: folder.path)
        request.threads = threads
        return request
    }

    @Test(arguments: [(Orientation.up, 1), (.right, 2)])
    func tinyChunksRenderTheSameBytesAsAFile(orientation: Orientation, threads: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try Renderer.render(
            request(threads: threads, folder: folder), input: input.path, output: folder.file("file.jpg"),
            displayAt: folder.file("file.display.jpg"), orientation: orientation)
        let output = MemoryUpload()
        let display = MemoryUpload()
        let result = try Renderer.render(
            request(threads: threads, folder: folder),
            from: ChunkedSource(try Fixtures.bytes(of: input), maxChunk: 13, seed: 7), to: output,
            renditions: [RenditionUpload(.display(), to: display)], orientation: orientation)
        #expect(
            output.committed.map { Data($0) } == (try Data(contentsOf: URL(fileURLWithPath: folder.file("file.jpg")))))
        #expect(
            display.committed.map { Data($0) }
                == (try Data(contentsOf: URL(fileURLWithPath: folder.file("file.display.jpg")))))
        #expect(result.outputBytes == output.committed?.count)
    }

    /// The input breaks off part way (after the header, in the entropy data): a typed I/O
    /// error that names the input and where it stopped; neither output is published and the
    /// folder holds no temporary.
    @Test(arguments: [1, 2])
    func aSourceThatFailsMidFilePublishesNothing(threads: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let source = ChunkedSource(
            try Fixtures.bytes(of: input), name: "originals/ab/ab12.jpg", maxChunk: 4096, failAfter: 40_000)
        let output = try FileUpload(finalPath: folder.file("out.jpg"))
        let display = try FileUpload(finalPath: folder.file("display.jpg"))
        #expect {
            _ = try Renderer.render(
                request(threads: threads, folder: folder), from: source, to: output,
                renditions: [RenditionUpload(.display(), to: display)], orientation: .up)
        } throws: { error in
            guard let codec = (error as? RenderError)?.codecError, codec.format == .jpeg,
                let jpeg = codec.cause as? JPEGError, let cause = jpeg.cause
            else { return false }
            return jpeg.code == .io && jpeg.object == "originals/ab/ab12.jpg" && jpeg.byteOffset == 40_000
                && cause.systemErrno == ECONNRESET && !(error as! RenderError).isPermanent
        }
        #expect(folder.contents().isEmpty, "\(folder.contents())")
    }

    /// The output (or the display copy) cannot be written part way: the error names that
    /// object; no object is visible and the real upload's temporary is gone.
    @Test(arguments: [(false, 1), (false, 2), (true, 1), (true, 2)])
    func aSinkFailureLeavesNoObjectAndNoTemporary(failDisplay: Bool, threads: Int) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let full = try FileUpload(finalPath: folder.file("out.jpg"), name: "renders/1/2.jpg")
        let copy = try FileUpload(finalPath: folder.file("display.jpg"), name: "renders/1/2.display.jpg")
        let output: any ObjectUpload = failDisplay ? full : FailingUpload(full, failAfter: 20_000)
        let display: any ObjectUpload = failDisplay ? FailingUpload(copy, failAfter: 20_000) : copy
        let failing = failDisplay ? "renders/1/2.display.jpg" : "renders/1/2.jpg"
        #expect(folder.contents().count == 2, "both temporaries exist while the render runs")
        #expect {
            _ = try Renderer.render(
                request(threads: threads, folder: folder), from: FileSource(path: input.path), to: output,
                renditions: [RenditionUpload(.display(), to: display)], orientation: .right)
        } throws: { error in
            guard let codec = (error as? RenderError)?.codecError, let jpeg = codec.cause as? JPEGError else {
                return false
            }
            return jpeg.code == .io && jpeg.object == failing && jpeg.cause?.systemErrno == ENOSPC
                && "\(error)".contains("no space left")
        }
        #expect(folder.contents().isEmpty, "\(folder.contents())")
    }

    /// A WebP or AVIF rendition, written whole at the end, that cannot be written: the error is
    /// its format's, names its object, and nothing of the render is left.
    @Test(arguments: [Rendition.Format.webp, .avif])
    func aRenditionThatCannotBeWrittenFailsUnderItsFormat(format: Rendition.Format) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let full = try FileUpload(finalPath: folder.file("out.jpg"), name: "renders/1/2.jpg")
        let name = "renders/1/2.thumb.\(format.fileExtension)"
        let thumb = FailingUpload(try FileUpload(finalPath: folder.file("thumb"), name: name), failAfter: 100)
        let rendition = Rendition(name: "thumb", format: format, longestSide: 320, quality: 80)
        var roomy = request(threads: 1, folder: folder)
        roomy.limits.memoryBudget = 64 << 20  // the encoders' own peaks are priced too
        #expect {
            _ = try Renderer.render(
                roomy, from: FileSource(path: input.path), to: full,
                renditions: [RenditionUpload(rendition, to: thumb)]
            ) { _ in PictureEdit(operations: [], orientation: .up) }
        } throws: { error in
            guard let codec = (error as? RenderError)?.codecError else { return false }
            return codec.code == .io && codec.format == (format == .webp ? .webp : .heif) && codec.object == name
                && codec.streamError?.systemErrno == ENOSPC && !codec.isPermanent
        }
        #expect(folder.contents().isEmpty, "\(folder.contents())")
    }
}

extension StreamRenderTests {
    /// A WebP carries at most 1 MiB of metadata. A photo whose colour profile is larger still
    /// gets its WebP rendition, without the profile and with a warning that says so.
    @Test func aWebPRenditionLeavesOutAProfileLargerThanItCarries() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // Apple's Display P3 profile, its size field made to count 1.5 MiB of padding after it.
        var profile = try Fixtures.bytes(of: Fixtures.root.appendingPathComponent("icc/apple-display-p3.icc"))
        profile += [UInt8](repeating: 0, count: (3 << 19) - profile.count)
        let size = UInt32(profile.count)
        profile.replaceSubrange(0..<4, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) })
        let image = DecodedImage(width: 64, height: 48, pixels: HEIFFixtures.quadrants(width: 64, height: 48))
        let input = folder.file("in.jpg")
        let file = try FileUpload(finalPath: input)
        let encoder = try JPEGEncoder(sink: file)
        try encoder.start(width: 64, height: 48, encoding: JPEGEncoding(quality: 95))
        try encoder.writeICCProfile(profile)
        try image.pixels.withUnsafeBytes { try encoder.writeRows(from: $0, rowStride: 64 * 3, rowCount: 48) }
        try encoder.finish()
        try file.commit()

        var roomy = request(threads: 1, folder: folder)
        roomy.limits.memoryBudget = 64 << 20
        let thumb = try FileUpload(finalPath: folder.file("thumb.webp"))
        let result = try Renderer.render(
            roomy, from: FileSource(path: input), to: try FileUpload(finalPath: folder.file("out.jpg")),
            renditions: [RenditionUpload(Rendition(name: "thumb", format: .webp, longestSide: 32), to: thumb)]
        ) { _ in PictureEdit(operations: [], orientation: .up) }
        #expect(result.warnings.contains { $0.code == "rendition.metadata_left_out" }, "\(result.warnings)")
        let info = try ReferenceImages.run("webpinfo", [folder.file("thumb.webp")])
        #expect(info.status == 0 && !info.output.contains("ICCP"), "\(info.output)")
        // The full render keeps the profile: a JPEG has room for it.
        let rendered = try JPEGDecoder(source: FileSource(path: folder.file("out.jpg"))).header
        #expect(rendered.iccProfile?.count == profile.count)
    }
}
