import ByteStreams
import CHeif

/// What a HEIF decoder may take.
public struct HEIFLimits: Sendable, Equatable {
    /// The whole file is held in memory (libheif needs random access and reads every item
    /// when it opens a file): larger files are refused before libheif sees them.
    public var maxFileBytes: Int
    /// Refuse images wider or taller than this (libheif checks the `ispe` box before it
    /// allocates anything).
    public var maxSide: Int
    /// Threads libheif may decode tiles of a grid image on; 1 decodes on the calling thread.
    public var decodingThreads: Int

    /// libheif's own limit per item is 512 MB; JPEG output stops at 65 500 pixels a side.
    public init(maxFileBytes: Int = 512 << 20, maxSide: Int = 65_500, decodingThreads: Int = 1) {
        self.maxFileBytes = maxFileBytes
        self.maxSide = maxSide
        self.decodingThreads = decodingThreads
    }
}

/// Owns everything libheif hands out for one file: the file's bytes (libheif reads them in
/// place), the context, the primary image's handle and, once decoded, the image. Each of those
/// has exactly one owner below, and no pointer leaves this file.
///
/// libheif 1.15 decodes a whole image at once (grid tiles included; it has no tile API before
/// 1.19), so `decode()` allocates the full image: `HEIFHeader.decodeBytesPerPixel` per pixel at
/// its peak, 3 after it. Rows are then handed out top to bottom, as from a JPEG decoder.
/// `irot`, `imir` and `clap` are applied by libheif: the rows are upright.
public final class HEIFDecoder {
    public let objectName: String
    public let header: HEIFHeader
    private var primary: PrimaryImage?
    private var decoded: DecodedImage?
    public private(set) var nextRow = 0

    /// Reads `source` to its end (at most `limits.maxFileBytes`) and the primary image's header.
    public init(source: any ByteSource, limits: HEIFLimits = HEIFLimits()) throws(HEIFError) {
        startLibheif()
        let name = source.objectName
        objectName = name
        let file = try FileBytes(reading: source, limit: limits.maxFileBytes)
        let fileType = HEIFFileType(prefix: file.bytes.prefix(HEIFFileType.sniffLength))
        guard let fileType, fileType.isHEIF else { throw HEIFError.notHEIF(fileType, path: name) }
        let context = try Context(file: file, limits: limits, name: name)
        let primary = try PrimaryImage(context: context, name: name)
        self.primary = primary
        header = try primary.readHeader(fileType: fileType, fileBytes: file.bytes.count)
    }

    public var outputHeight: Int { header.height }
    public var isDecoded: Bool { decoded != nil }

    /// Decodes the whole primary image to 8-bit RGB, upright, and lets go of the file, the
    /// context and the handle (the image stands alone). A coded image whose size differs
    /// from the header's is corrupt: libheif 1.15 does not compare them itself.
    public func decode() throws(HEIFError) {
        guard decoded == nil, let primary else { throw misuse("decode called twice") }
        let image = try primary.decode()
        guard image.width == header.width, image.height == header.height else {
            throw HEIFError(
                code: .corrupt,
                message: "the coded image decodes to \(image.width)×\(image.height) "
                    + "but the file's header says \(header.width)×\(header.height)", path: objectName)
        }
        decoded = image
        self.primary = nil
    }

    /// Copies up to `rowCount` rows of `width * 3` bytes into `buffer`, `rowStride` bytes apart.
    /// Returns the rows copied; 0 at the end of the image.
    public func readRows(into buffer: UnsafeMutableRawBufferPointer, rowStride: Int, rowCount: Int) throws(HEIFError)
        -> Int
    {
        guard let decoded else { throw misuse("readRows before decode") }
        let count = min(rowCount, header.height - nextRow)
        guard count > 0 else { return 0 }
        let rowBytes = header.width * 3
        precondition(rowStride >= rowBytes && buffer.count >= rowStride * (count - 1) + rowBytes)
        decoded.copyRows(
            from: nextRow, count: count, rowBytes: rowBytes, into: buffer.baseAddress!, rowStride: rowStride)
        nextRow += count
        return count
    }

    public func skipRows(_ count: Int) throws(HEIFError) {
        guard decoded != nil else { throw misuse("skipRows before decode") }
        nextRow = min(header.height, nextRow + max(0, count))
    }

    /// Frees the decoded image; call after the last row.
    public func finish() throws(HEIFError) {
        guard decoded != nil else { throw misuse("finish before decode") }
        decoded = nil
    }

    private func misuse(_ message: String) -> HEIFError {
        HEIFError(code: .misuse, message: message, path: objectName)
    }
}

/// libheif's reference-counted start-up (it registers the built-in codecs), once per process
/// and never undone: a process that reads one HEIF usually reads more.
private let libheifStarted: Void = { _ = heif_init(nil) }()

func startLibheif() { libheifStarted }

// MARK: The owners

/// The whole file in one allocation, which libheif reads in place (`…_without_copy`).
private final class FileBytes {
    let bytes: UnsafeMutableRawBufferPointer

    init(reading source: any ByteSource, limit: Int) throws(HEIFError) {
        var capacity = min(1 << 20, max(limit, 1))
        var storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        var count = 0
        do {
            while true {
                if count == capacity {
                    guard capacity < limit else {
                        let rest = try Self.countRest(of: source)
                        if rest == 0 { break }  // exactly the limit
                        storage.deallocate()
                        let total = count + rest
                        var error = HEIFError(
                            code: .tooLarge,
                            message: "the file has \(total) bytes, more than the \(limit) it may hold in memory",
                            path: source.objectName)
                        error.fileBytes = total
                        throw error
                    }
                    let grown = UnsafeMutableRawPointer.allocate(byteCount: min(capacity * 2, limit), alignment: 16)
                    grown.copyMemory(from: storage, byteCount: count)
                    storage.deallocate()
                    storage = grown
                    capacity = min(capacity * 2, limit)
                }
                let got = try source.read(
                    into: UnsafeMutableRawBufferPointer(start: storage + count, count: capacity - count))
                if got == 0 { break }
                count += got
            }
        } catch let error as HEIFError {
            throw error
        } catch {
            storage.deallocate()
            let cause = error as? StreamError
            throw HEIFError(code: .io, message: cause?.message ?? "\(error)", path: source.objectName, cause: cause)
        }
        bytes = UnsafeMutableRawBufferPointer(start: storage, count: count)
    }

    /// Reads the rest of a file too large to keep, to say how large it is.
    private static func countRest(of source: any ByteSource) throws(StreamError) -> Int {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { scratch.deallocate() }
        var total = 0
        while true {
            let got = try source.read(into: scratch)
            if got == 0 { return total }
            total += got
        }
    }

    deinit { bytes.baseAddress?.deallocate() }
}

/// `heif_context`: keeps the file alive as long as libheif may read it.
private final class Context {
    let pointer: OpaquePointer
    private let file: FileBytes

    init(file: FileBytes, limits: HEIFLimits, name: String) throws(HEIFError) {
        guard let pointer = heif_context_alloc() else {
            throw HEIFError(code: .outOfMemory, message: "could not allocate a libheif context", path: name)
        }
        self.pointer = pointer
        self.file = file
        // Before reading: libheif checks `ispe` against it while it parses.
        heif_context_set_maximum_image_size_limit(pointer, Int32(clamping: limits.maxSide))
        // 0 decodes on the calling thread; n > 1 decodes n tiles at once.
        heif_context_set_max_decoding_threads(
            pointer, limits.decodingThreads > 1 ? Int32(clamping: limits.decodingThreads) : 0)
        try check(
            heif_context_read_from_memory_without_copy(pointer, file.bytes.baseAddress, file.bytes.count, nil),
            path: name)
    }

    deinit { heif_context_free(pointer) }
}

/// `heif_image_handle` of the primary image; keeps its context (and so the file) alive.
private final class PrimaryImage {
    let pointer: OpaquePointer
    private let context: Context
    private let name: String

    init(context: Context, name: String) throws(HEIFError) {
        var handle: OpaquePointer?
        let error = heif_context_get_primary_image_handle(context.pointer, &handle)
        guard error.code == heif_error_Ok, let handle else {
            if let handle { heif_image_handle_release(handle) }
            throw error.code == heif_error_Ok
                ? HEIFError(code: .corrupt, message: "the file has no primary image", path: name)
                : HEIFError(error, path: name)
        }
        pointer = handle
        self.context = context
        self.name = name
    }

    deinit { heif_image_handle_release(pointer) }

    func readHeader(fileType: HEIFFileType, fileBytes: Int) throws(HEIFError) -> HEIFHeader {
        let width = Int(heif_image_handle_get_width(pointer))
        let height = Int(heif_image_handle_get_height(pointer))
        guard width > 0, height > 0 else {
            throw HEIFError(code: .corrupt, message: "the primary image has no size (\(width)×\(height))", path: name)
        }
        let depth = Int(heif_image_handle_get_luma_bits_per_pixel(pointer))
        var header = HEIFHeader(
            fileType: fileType, width: width, height: height,
            codedWidth: Int(heif_image_handle_get_ispe_width(pointer)),
            codedHeight: Int(heif_image_handle_get_ispe_height(pointer)),
            hasAlpha: heif_image_handle_has_alpha_channel(pointer) != 0, bitDepth: depth > 0 ? depth : 8,
            iccProfile: try iccProfile(), nclx: try nclx(), fileBytes: fileBytes)
        if let item = try exifItem() {
            let exif = HEIFExifBlock.app1Payload(fromItem: item)
            header.exifPayload = exif.payload
            if let problem = exif.problem { header.warnings.append(problem) }
        }
        return header
    }

    /// The first `Exif` metadata item of the image, as stored.
    private func exifItem() throws(HEIFError) -> [UInt8]? {
        let count = heif_image_handle_get_number_of_metadata_blocks(pointer, "Exif")
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: Int(count))
        _ = heif_image_handle_get_list_of_metadata_block_IDs(pointer, "Exif", &ids, count)
        let size = heif_image_handle_get_metadata_size(pointer, ids[0])
        guard size > 0 else { return nil }
        var item = [UInt8](repeating: 0, count: size)
        try check(heif_image_handle_get_metadata(pointer, ids[0], &item), path: name)
        return item
    }

    private func iccProfile() throws(HEIFError) -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(pointer)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(pointer)
        guard size > 0 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        try check(heif_image_handle_get_raw_color_profile(pointer, &profile), path: name)
        return profile
    }

    private func nclx() throws(HEIFError) -> HEIFColorDescription? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = heif_image_handle_get_nclx_color_profile(pointer, &profile)
        defer { if let profile { heif_nclx_color_profile_free(profile) } }
        if error.code == heif_error_Color_profile_does_not_exist { return nil }
        try check(error, path: name)
        guard let nclx = profile?.pointee else { return nil }
        return HEIFColorDescription(
            primaries: Int(nclx.color_primaries.rawValue), transfer: Int(nclx.transfer_characteristics.rawValue),
            matrix: Int(nclx.matrix_coefficients.rawValue), fullRange: nclx.full_range_flag != 0)
    }

    /// Decodes to interleaved 8-bit RGB with the transformations applied; strict, so libheif
    /// fails instead of carrying on with warnings.
    func decode() throws(HEIFError) -> DecodedImage {
        guard let options = heif_decoding_options_alloc() else {
            throw HEIFError(code: .outOfMemory, message: "could not allocate libheif decoding options", path: name)
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 1
        options.pointee.strict_decoding = 1
        var image: OpaquePointer?
        let error = heif_decode_image(pointer, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
        guard error.code == heif_error_Ok, let image else {
            if let image { heif_image_release(image) }
            throw error.code == heif_error_Ok
                ? HEIFError(code: .damaged, message: "libheif decoded no image", path: name)
                : HEIFError(error, path: name)
        }
        let decoded = try DecodedImage(owning: image, name: name)
        if let warning = decoded.firstDecodingWarning(name: name) { throw warning }
        return decoded
    }
}

/// `heif_image`: the decoded pixels, standing alone (no context needed).
private final class DecodedImage {
    private let pointer: OpaquePointer
    let width: Int
    let height: Int
    private let plane: UnsafePointer<UInt8>
    private let stride: Int

    init(owning pointer: OpaquePointer, name: String) throws(HEIFError) {
        self.pointer = pointer
        width = Int(heif_image_get_width(pointer, heif_channel_interleaved))
        height = Int(heif_image_get_height(pointer, heif_channel_interleaved))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(pointer, heif_channel_interleaved, &stride) else {
            heif_image_release(pointer)
            throw HEIFError(code: .misuse, message: "libheif returned no interleaved RGB plane", path: name)
        }
        self.plane = plane
        self.stride = Int(stride)
    }

    /// The first warning libheif attached while decoding, if any: strict decoding should turn
    /// them into errors, and a picture decoded with warnings is not one to render.
    func firstDecodingWarning(name: String) -> HEIFError? {
        guard heif_image_get_decoding_warnings(pointer, 0, nil, 0) > 0 else { return nil }
        var first = heif_error()
        _ = heif_image_get_decoding_warnings(pointer, 0, &first, 1)
        let warning = HEIFError(first, path: name)
        return HEIFError(
            code: .damaged, message: "libheif could only decode it with warnings: \(warning.message)", path: name,
            libheifCode: warning.libheifCode, libheifSubcode: warning.libheifSubcode)
    }

    deinit { heif_image_release(pointer) }

    func copyRows(from first: Int, count: Int, rowBytes: Int, into target: UnsafeMutableRawPointer, rowStride: Int) {
        for row in 0..<count {
            (target + row * rowStride).copyMemory(from: plane + (first + row) * stride, byteCount: rowBytes)
        }
    }
}
