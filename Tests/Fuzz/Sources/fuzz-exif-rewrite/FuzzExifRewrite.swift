import DarkroomMetadata
import FuzzSupport
import LibExif

/// The input is the original's APP1 payload; the render size comes from its length. When the
/// rewrite accepts it, the result must keep its promises: the same size, Orientation 1 (or
/// none), PixelX/YDimension (where present) holding the new size, no thumbnail, and every field
/// darkroom reads from it — GPS, date, make, model — exactly as before.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExifRewrite(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let width = 1 + bytes.count % 7919
        let height = 1 + (bytes.count * 31) % 6007
        let rewritten: [UInt8]
        do {
            rewritten = try OutputExif.rewrite(app1Payload: bytes, pixelWidth: width, pixelHeight: height)
        } catch {
            return  // typed throws: an ExifRewriteError; the render goes out without EXIF
        }
        require(
            rewritten.count == bytes.count, "the rewrite changed the size from \(bytes.count) to \(rewritten.count)")
        let before = MetadataReader.read(app1Payload: bytes).metadata
        let after = MetadataReader.read(app1Payload: rewritten).metadata
        require(after.orientation == 1, "orientation \(after.orientation) after the rewrite")
        require(
            sameBits(before.latitude, after.latitude) && sameBits(before.longitude, after.longitude)
                && sameBits(before.altitude, after.altitude),
            "GPS \(String(describing: before.latitude)), \(String(describing: before.longitude)), \(String(describing: before.altitude)) became "
                + "\(String(describing: after.latitude)), \(String(describing: after.longitude)), \(String(describing: after.altitude))"
        )
        require(
            before.creationDate == after.creationDate,
            "date \(String(describing: before.creationDate)) became \(String(describing: after.creationDate))")
        require(
            before.cameraMake == after.cameraMake && before.cameraModel == after.cameraModel, "make or model changed")
        guard let original = try? ExifDocument(app1Payload: bytes),
            let document = try? ExifDocument(app1Payload: rewritten)
        else { return }
        for (tag, value) in [(ExifTag.pixelXDimension, width), (.pixelYDimension, height)]
        where original.value(tag, in: .exif) != nil {
            let written = document.value(tag, in: .exif)?.unsignedIntegers
            require(written == [UInt32(value)], "\(tag) is \(String(describing: written)), expected \(value)")
        }
        require(document.tags(in: .one).isEmpty, "IFD1 (the stale thumbnail) survived the rewrite")
    }
}
