import ByteStreams
internal import CHeif

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

    /// A colour profile is a few KiB (Display P3's is 548 bytes); libheif's default allows 100 MiB.
    public static let maxColorProfileBytes = 4 << 20
    /// A 65 500-pixel side in 256-pixel tiles; libheif's default allows 16 million.
    public static let maxTiles = 65_536
    /// A phone's HEIC has a few dozen items (its tiles, thumbnails, gain map, Exif, XMP).
    public static let maxItems = 1_000
}

/// Owns everything libheif hands out for one file: the file's bytes (libheif reads them in
/// place), the context, the primary image's handle, the decoding options and the decoded pixels.
/// Each of those has exactly one owner below, and no pointer leaves this file.
///
/// Rows come out as coded, top to bottom, before `irot`, `imir` and `clap` (`header.transforms`),
/// which the caller applies: so a grid image (every photo a phone takes) is decoded one row of
/// tiles at a time, and only that row of tiles is held. An image coded whole is decoded at once
/// on `start()`.
public final class HEIFDecoder {
    public let objectName: String
    public let header: HEIFHeader
    private var primary: PrimaryImage?
    private var decoded: DecodedRows?
    public private(set) var nextRow = 0

    /// Reads `source` to its end (at most `limits.maxFileBytes`) and the primary image's header.
    /// Throws `.unsupported` when the libheif loaded is older than darkroom needs.
    public init(source: any ByteSource, limits: HEIFLimits = HEIFLimits()) throws(HEIFError) {
        let name = source.objectName
        try HEIFLibrary.requireSupportedVersion(path: name)
        objectName = name
        let file = try FileBytes(reading: source, limit: limits.maxFileBytes)
        let fileType = HEIFFileType(prefix: file.bytes.prefix(HEIFFileType.sniffLength))
        guard let fileType, fileType.isHEIF else { throw HEIFError.notHEIF(fileType, object: name) }
        let context = try Context(file: file, limits: limits, name: name)
        let primary = try PrimaryImage(context: context, name: name)
        self.primary = primary
        var header = try primary.readHeader(fileType: fileType, fileBytes: file.bytes.count)
        header.movieBox = HEIFMovieBox.find(in: UnsafeRawBufferPointer(file.bytes))
        self.header = header
    }

    /// The primary image while nothing is decoded yet.
    var primaryBeforeStart: PrimaryImage? { decoded == nil ? primary : nil }

    /// Coded rows, before the transformations.
    public var outputHeight: Int { header.codedHeight }

    /// Starts decoding: an image coded whole is decoded now (and the file let go of); a grid's
    /// tiles are decoded as their rows are read.
    public func start() throws(HEIFError) {
        guard decoded == nil, let primary else { throw misuse("start called twice") }
        if let tiling = header.tiling {
            decoded = .tiles(
                TileRows(primary: primary, tiling: tiling, width: header.codedWidth, height: header.codedHeight))
            return
        }
        let image = try primary.decodeWhole()
        guard image.width == header.codedWidth, image.height == header.codedHeight else {
            if primary.selectsOperatingPoint() {
                throw HEIFError(
                    code: .unsupported,
                    message: "a layered AV1 image whose a1op property selects an operating point "
                        + "(\(header.codedWidth)×\(header.codedHeight)); libheif \(HEIFLibrary.version) decodes "
                        + "every layer (\(image.width)×\(image.height)) and cannot select one", object: objectName)
            }
            throw HEIFError(
                code: .corrupt,
                message: "the coded image decodes to \(image.width)×\(image.height) "
                    + "but the file's header says \(header.codedWidth)×\(header.codedHeight)", object: objectName)
        }
        decoded = .whole(image)
        self.primary = nil
    }

    /// Copies up to `rowCount` coded rows of `codedWidth * 3` bytes into `buffer`, `rowStride`
    /// bytes apart. Returns the rows copied; 0 at the end of the image.
    public func readRows(into buffer: UnsafeMutableRawBufferPointer, rowStride: Int, rowCount: Int) throws(HEIFError)
        -> Int
    {
        guard let decoded else { throw misuse("readRows before start") }
        let count = min(rowCount, header.codedHeight - nextRow)
        guard count > 0 else { return 0 }
        let rowBytes = header.codedWidth * 3
        precondition(rowStride >= rowBytes && buffer.count >= rowStride * (count - 1) + rowBytes)
        switch decoded {
        case .whole(let image):
            image.copyRows(
                from: nextRow, count: count, rowBytes: rowBytes, into: buffer.baseAddress!, rowStride: rowStride)
        case .tiles(let tiles):
            var copied = 0
            while copied < count {
                copied += try tiles.copyRows(
                    from: nextRow + copied, upTo: count - copied, into: buffer.baseAddress! + copied * rowStride,
                    rowStride: rowStride)
            }
        }
        nextRow += count
        return count
    }

    /// Skips coded rows; a row of tiles skipped whole is never decoded.
    public func skipRows(_ count: Int) throws(HEIFError) {
        guard decoded != nil else { throw misuse("skipRows before start") }
        nextRow = min(header.codedHeight, nextRow + max(0, count))
    }

    /// Lets go of the pixels and the file; call after the last row.
    public func finish() throws(HEIFError) {
        guard decoded != nil else { throw misuse("finish before start") }
        decoded = nil
        primary = nil
    }

    private func misuse(_ message: String) -> HEIFError {
        HEIFError(code: .misuse, message: message, object: objectName)
    }
}

/// What the decoder holds once started.
private enum DecodedRows {
    case whole(DecodedImage)
    case tiles(TileRows)
}

/// The libheif darkroom runs on.
public enum HEIFLibrary {
    /// The oldest libheif darkroom reads with: the first that decodes a grid a tile at a time and
    /// reads the HDR photos iPhones take (1.15 refuses their gain maps), as Debian 12's
    /// bookworm-backports ships it. The build refuses older headers (`CHeif/shim.h`).
    public static let requiredVersion = (major: 1, minor: 19, patch: 7)

    /// Starts libheif now (it loads its codec plugins from disk), as the first decode would:
    /// for a process that will not be allowed to open a file afterwards.
    public static func start() { libheifStarted }

    /// The version of the libheif loaded, as "1.19.7".
    public static var version: String { String(cString: heif_get_version()) }

    /// Throws `.unsupported` naming both versions when the libheif loaded at run time is older
    /// than `requiredVersion` (a binary built elsewhere, or a library replaced under it).
    public static func requireSupportedVersion(path: String = "libheif") throws(HEIFError) {
        libheifStarted
        let loaded = (
            Int(heif_get_version_number_major()), Int(heif_get_version_number_minor()),
            Int(heif_get_version_number_maintenance())
        )
        let needed = requiredVersion
        guard loaded >= (needed.major, needed.minor, needed.patch) else {
            throw HEIFError(
                code: .unsupported,
                message: "libheif \(version) is loaded, darkroom needs \(needed.major).\(needed.minor).\(needed.patch) "
                    + "or newer (Debian 12: bookworm-backports; `make deps` installs it)", object: path)
        }
    }
}

/// libheif's reference-counted start-up (it registers the built-in codecs), once per process
/// and never undone: a process that reads one HEIF usually reads more.
private let libheifStarted: Void = { _ = heif_init(nil) }()
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
                            object: source.objectName)
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
            throw HEIFError(code: .io, message: cause?.message ?? "\(error)", object: source.objectName, cause: cause)
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
final class Context {
    let pointer: OpaquePointer
    private let file: FileBytes

    fileprivate init(file: FileBytes, limits: HEIFLimits, name: String) throws(HEIFError) {
        guard let pointer = heif_context_alloc() else {
            throw HEIFError(code: .outOfMemory, message: "could not allocate a libheif context", object: name)
        }
        self.pointer = pointer
        self.file = file
        // Before reading: libheif checks these while it parses. Set explicitly rather than left at
        // libheif's defaults, which are sized for a desktop viewer: no memory block (an item's
        // data, a box's payload) larger than the file may be (which the render's budget bounds).
        heif_context_set_maximum_image_size_limit(pointer, Int32(clamping: limits.maxSide))
        if let security = heif_context_get_security_limits(pointer) {
            security.pointee.max_image_size_pixels = UInt64(limits.maxSide) * UInt64(limits.maxSide)
            security.pointee.max_memory_block_size = UInt64(max(limits.maxFileBytes, 1))
            security.pointee.max_color_profile_size = UInt32(HEIFLimits.maxColorProfileBytes)
            security.pointee.max_number_of_tiles = UInt64(HEIFLimits.maxTiles)
            security.pointee.max_items = UInt32(HEIFLimits.maxItems)
        }
        // 0 decodes on the calling thread; n > 1 decodes n tiles at once.
        heif_context_set_max_decoding_threads(
            pointer, limits.decodingThreads > 1 ? Int32(clamping: limits.decodingThreads) : 0)
        try check(
            heif_context_read_from_memory_without_copy(pointer, file.bytes.baseAddress, file.bytes.count, nil),
            object: name)
    }

    deinit { heif_context_free(pointer) }
}

/// `heif_image_handle` of the primary image; keeps its context (and so the file) alive.
final class PrimaryImage {
    let pointer: OpaquePointer
    let context: Context
    let name: String
    private lazy var options = DecodingOptions()

    init(context: Context, name: String) throws(HEIFError) {
        var handle: OpaquePointer?
        let error = heif_context_get_primary_image_handle(context.pointer, &handle)
        guard error.code == heif_error_Ok, let handle else {
            if let handle { heif_image_handle_release(handle) }
            throw error.code == heif_error_Ok
                ? HEIFError(code: .corrupt, message: "the file has no primary image", object: name)
                : HEIFError(error, object: name)
        }
        pointer = handle
        self.context = context
        self.name = name
    }

    var objectName: String { name }

    deinit { heif_image_handle_release(pointer) }

    func readHeader(fileType: HEIFFileType, fileBytes: Int) throws(HEIFError) -> HEIFHeader {
        let width = Int(heif_image_handle_get_width(pointer))
        let height = Int(heif_image_handle_get_height(pointer))
        guard width > 0, height > 0 else {
            throw HEIFError(code: .corrupt, message: "the primary image has no size (\(width)×\(height))", object: name)
        }
        let depth = Int(heif_image_handle_get_luma_bits_per_pixel(pointer))
        var layout = heif_image_tiling()
        try check(heif_image_handle_get_image_tiling(pointer, 0, &layout), object: name)
        // `ispe`: what the decoder delivers as coded (a grid's output size); libheif's tiling of
        // an image coded whole gives its size after `clap`.
        let ispe = (
            width: Int(heif_image_handle_get_ispe_width(pointer)),
            height: Int(heif_image_handle_get_ispe_height(pointer))
        )
        let coded =
            ispe.width > 0 && ispe.height > 0
            ? ispe : (width: Int(layout.image_width), height: Int(layout.image_height))
        guard coded.width > 0, coded.height > 0 else {
            throw HEIFError(code: .corrupt, message: "the primary image has no coded size", object: name)
        }
        var header = HEIFHeader(
            fileType: fileType, width: width, height: height, codedWidth: coded.width, codedHeight: coded.height,
            hasAlpha: heif_image_handle_has_alpha_channel(pointer) != 0, bitDepth: depth > 0 ? depth : 8,
            iccProfile: try iccProfile(), nclx: try nclx(), fileBytes: fileBytes)
        var colorspace = heif_colorspace_undefined
        var chroma = heif_chroma_undefined
        if heif_image_handle_get_preferred_decoding_colorspace(pointer, &colorspace, &chroma).code == heif_error_Ok {
            header.fullChroma = chroma == heif_chroma_444 || colorspace == heif_colorspace_RGB
        }
        header.transforms = try transforms(codedWidth: coded.width, codedHeight: coded.height)
        header.auxiliaryImages = try auxiliaryImages()
        header.toneMap = toneMap()
        // Reading every coded item now (libheif reads them only to decode) refuses a cut or
        // misdirected file at once, before it is imported or priced.
        if layout.num_columns * layout.num_rows > 1 {
            header.tiling = try tiling(layout)
        } else {
            _ = try compressedBytes(of: heif_image_handle_get_item_id(pointer))
        }
        if let item = try exifItem() {
            let exif = HEIFExifBlock.app1Payload(fromItem: item)
            header.exifPayload = exif.payload
            if let problem = exif.problem { header.warnings.append(problem) }
        }
        // Its date and location only stand in for EXIF's: an unreadable item spoils no photo.
        do {
            header.xmpPacket = try xmp(of: pointer)
        } catch {
            header.warnings.append("the XMP item cannot be read: \(error.message)")
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
        try check(heif_image_handle_get_metadata(pointer, ids[0], &item), object: name)
        return item
    }

    private func iccProfile() throws(HEIFError) -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(pointer)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(pointer)
        guard size > 0 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        try check(heif_image_handle_get_raw_color_profile(pointer, &profile), object: name)
        return profile
    }

    private func nclx() throws(HEIFError) -> HEIFColorDescription? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = heif_image_handle_get_nclx_color_profile(pointer, &profile)
        defer { if let profile { heif_nclx_color_profile_free(profile) } }
        if error.code == heif_error_Color_profile_does_not_exist { return nil }
        try check(error, object: name)
        guard let nclx = profile?.pointee else { return nil }
        return HEIFColorDescription(
            primaries: Int(nclx.color_primaries.rawValue), transfer: Int(nclx.transfer_characteristics.rawValue),
            matrix: Int(nclx.matrix_coefficients.rawValue), fullRange: nclx.full_range_flag != 0)
    }

    /// `irot`, `imir` and `clap` in the file's order, each crop in whole pixels of the image as
    /// it is at its step. The result must give the displayed size libheif reports.
    private func transforms(codedWidth: Int, codedHeight: Int) throws(HEIFError) -> [HEIFTransform] {
        let item = heif_image_handle_get_item_id(pointer)
        let count = heif_item_get_transformation_properties(context.pointer, item, nil, 0)
        guard count > 0 else { return [] }
        var ids = [heif_property_id](repeating: 0, count: Int(count))
        _ = heif_item_get_transformation_properties(context.pointer, item, &ids, count)
        var size = (width: codedWidth, height: codedHeight)
        var steps: [HEIFTransform] = []
        for id in ids {
            switch heif_item_get_property_type(context.pointer, item, id) {
            case heif_item_property_type_transform_rotation:
                let degrees = Int(heif_item_get_property_transform_rotation_ccw(context.pointer, item, id))
                guard [0, 90, 180, 270].contains(degrees) else { throw corrupt("an irot of \(degrees)°") }
                if degrees % 180 == 90 { size = (size.height, size.width) }
                if degrees != 0 { steps.append(.rotation(counterClockwiseDegrees: degrees)) }
            case heif_item_property_type_transform_mirror:
                switch heif_item_get_property_transform_mirror(context.pointer, item, id) {
                case heif_transform_mirror_direction_horizontal: steps.append(.mirror(leftToRight: true))
                case heif_transform_mirror_direction_vertical: steps.append(.mirror(leftToRight: false))
                default: throw corrupt("an imir with no direction")
                }
            case heif_item_property_type_transform_crop:
                var left: Int32 = 0
                var top: Int32 = 0
                var right: Int32 = 0
                var bottom: Int32 = 0
                heif_item_get_property_transform_crop_borders(
                    context.pointer, item, id, Int32(size.width), Int32(size.height), &left, &top, &right, &bottom)
                let borders = (Int(left), Int(top), Int(right), Int(bottom))
                guard borders.0 >= 0, borders.1 >= 0, borders.2 >= 0, borders.3 >= 0,
                    borders.0 + borders.2 < size.width, borders.1 + borders.3 < size.height
                else { throw corrupt("a clap that leaves no picture of \(size.width)×\(size.height)") }
                size = (size.width - borders.0 - borders.2, size.height - borders.1 - borders.3)
                steps.append(.crop(left: borders.0, top: borders.1, right: borders.2, bottom: borders.3))
            default:
                continue
            }
        }
        let displayed = (Int(heif_image_handle_get_width(pointer)), Int(heif_image_handle_get_height(pointer)))
        guard size == displayed else {
            throw corrupt(
                "its irot, imir and clap turn \(codedWidth)×\(codedHeight) into \(size.width)×\(size.height), "
                    + "but it says \(displayed.0)×\(displayed.1) is displayed")
        }
        return steps
    }

    /// The image's tiles, and the compressed size of its largest: a grid's tiles are items of
    /// their own; an image tiled inside one item (`unci`, `tili`) is priced by that item.
    private func tiling(_ layout: heif_image_tiling) throws(HEIFError) -> HEIFTiling {
        guard layout.tile_width > 0, layout.tile_height > 0 else { throw corrupt("a grid of tiles with no size") }
        var largest = 0
        var first: heif_item_id = 0
        if heif_image_handle_get_grid_image_tile_id(pointer, 0, 0, 0, &first).code == heif_error_Usage_error {
            largest = try compressedBytes(of: heif_image_handle_get_item_id(pointer))
        } else {
            for row in 0..<layout.num_rows {
                for column in 0..<layout.num_columns {
                    var tile: heif_item_id = 0
                    try check(heif_image_handle_get_grid_image_tile_id(pointer, 0, column, row, &tile), object: name)
                    largest = max(largest, try compressedBytes(of: tile))
                }
            }
        }
        return HEIFTiling(
            columns: Int(layout.num_columns), rows: Int(layout.num_rows), tileWidth: Int(layout.tile_width),
            tileHeight: Int(layout.tile_height), largestTileBytes: largest)
    }

    /// The bytes of an item as stored (libheif copies them; the copy is freed at once).
    private func compressedBytes(of item: heif_item_id) throws(HEIFError) -> Int {
        var compression = heif_metadata_compression_off
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        try check(heif_item_get_item_data(context.pointer, item, &compression, &data, &size), object: name)
        heif_release_item_data(context.pointer, &data)
        return size
    }

    private func corrupt(_ what: String) -> HEIFError {
        HEIFError(code: .corrupt, message: "the primary image has \(what)", object: name)
    }

    /// Decodes an image coded whole to interleaved 8-bit RGB, as coded (no transformations).
    fileprivate func decodeWhole() throws(HEIFError) -> DecodedImage {
        let options = try options.pointer(name: name)
        return try decoded(name: name) { image in
            heif_decode_image(pointer, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
        }
    }

    /// Decodes the grid's tile at (`column`, `row`), as coded. libheif 1.19.7 crops a tile to
    /// the grid only at 8 bits a sample ("unsupported feature" above): then the tile's own item
    /// is decoded whole, and `TileRows` takes what the grid shows of it.
    fileprivate func decodeTile(column: Int, row: Int) throws(HEIFError) -> DecodedImage {
        let options = try options.pointer(name: name)
        let tileName = "\(name) (tile \(column),\(row))"
        do {
            return try decoded(name: tileName) { image in
                heif_image_handle_decode_image_tile(
                    pointer, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options, UInt32(column),
                    UInt32(row))
            }
        } catch  where error.libheifCode == Int(heif_error_Unsupported_feature.rawValue) {
            var item: heif_item_id = 0
            try check(
                heif_image_handle_get_grid_image_tile_id(pointer, 0, UInt32(column), UInt32(row), &item),
                object: tileName
            )
            return try withImage(item, describedAs: "its tile \(column),\(row)", name: tileName) {
                tile throws(HEIFError) in
                try decoded(name: tileName) { image in
                    heif_decode_image(tile, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
                }
            }
        }
    }

    /// Runs `body` with the handle of `id`, an image item of the file (`what`, as an error names
    /// it), released after.
    func withImage<T>(
        _ id: heif_item_id, describedAs what: String, name: String, _ body: (OpaquePointer) throws(HEIFError) -> T
    ) throws(HEIFError) -> T {
        var handle: OpaquePointer?
        let error = heif_context_get_image_handle(context.pointer, id, &handle)
        guard error.code == heif_error_Ok, let handle else {
            if let handle { heif_image_handle_release(handle) }
            // libheif names an item that is no image (or none at all) a usage error.
            if error.code == heif_error_Ok || error.code == heif_error_Usage_error {
                throw HEIFError(
                    code: .corrupt, message: "\(what), item \(id), is not an image in the file", object: name)
            }
            throw HEIFError(error, object: name)
        }
        defer { heif_image_handle_release(handle) }
        return try body(handle)
    }

    /// Strict: libheif fails instead of carrying on with warnings. The image's `channel` plane
    /// (interleaved RGB, or Y for a monochrome decode) is what it hands out.
    func decoded(
        name: String, channel: heif_channel = heif_channel_interleaved,
        _ decode: (inout OpaquePointer?) -> heif_error
    ) throws(HEIFError) -> DecodedImage {
        var image: OpaquePointer?
        let error = decode(&image)
        guard error.code == heif_error_Ok, let image else {
            if let image { heif_image_release(image) }
            throw error.code == heif_error_Ok
                ? HEIFError(code: .damaged, message: "libheif decoded no image", object: name)
                : HEIFError(error, object: name)
        }
        let decoded = try DecodedImage(owning: image, channel: channel, name: name)
        if let warning = decoded.firstDecodingWarning(name: name) { throw warning }
        return decoded
    }
}

/// `heif_decoding_options`: 8 bits, strict; as coded (darkroom applies the primary's `irot`,
/// `imir` and `clap` itself), or with the item's own transformations applied.
final class DecodingOptions {
    private var options: UnsafeMutablePointer<heif_decoding_options>?
    private let ignoreTransformations: Bool

    init(ignoreTransformations: Bool = true) {
        self.ignoreTransformations = ignoreTransformations
    }

    func pointer(name: String) throws(HEIFError) -> UnsafeMutablePointer<heif_decoding_options> {
        if let options { return options }
        guard let options = heif_decoding_options_alloc() else {
            throw HEIFError(code: .outOfMemory, message: "could not allocate libheif decoding options", object: name)
        }
        options.pointee.ignore_transformations = ignoreTransformations ? 1 : 0
        options.pointee.convert_hdr_to_8bit = 1
        options.pointee.strict_decoding = 1
        self.options = options
        return options
    }

    deinit { if let options { heif_decoding_options_free(options) } }
}

/// One row of a grid's tiles at a time, decoded when a row in it is first read and copied into
/// one buffer of the image's coded width.
private final class TileRows {
    private let primary: PrimaryImage
    private let tiling: HEIFTiling
    private let width: Int
    private let height: Int
    private let buffer: UnsafeMutableRawBufferPointer
    private var bufferedRow: Int?

    init(primary: PrimaryImage, tiling: HEIFTiling, width: Int, height: Int) {
        self.primary = primary
        self.tiling = tiling
        self.width = width
        self.height = height
        buffer = .allocate(byteCount: tiling.tileHeight * width * 3, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Copies rows from `first` on, up to the end of its row of tiles; returns how many.
    func copyRows(from first: Int, upTo count: Int, into target: UnsafeMutableRawPointer, rowStride: Int)
        throws(HEIFError) -> Int
    {
        let tileRow = first / tiling.tileHeight
        if bufferedRow != tileRow { try decode(tileRow: tileRow) }
        let offset = first - tileRow * tiling.tileHeight
        let rows = min(count, tiling.tileHeight - offset)
        let rowBytes = width * 3
        for row in 0..<rows {
            (target + row * rowStride).copyMemory(
                from: buffer.baseAddress! + (offset + row) * rowBytes, byteCount: rowBytes)
        }
        return rows
    }

    /// Tiles past the image's right or bottom edge are cut to it (a grid's last column and row).
    private func decode(tileRow: Int) throws(HEIFError) {
        bufferedRow = nil
        let rows = min(tiling.tileHeight, height - tileRow * tiling.tileHeight)
        for column in 0..<tiling.columns {
            let x = column * tiling.tileWidth
            let tileWidth = min(tiling.tileWidth, width - x)
            guard tileWidth > 0 else { break }
            let tile = try primary.decodeTile(column: column, row: tileRow)
            guard tile.width >= tileWidth, tile.height >= rows else {
                throw HEIFError(
                    code: .corrupt,
                    message: "tile \(column),\(tileRow) decodes to \(tile.width)×\(tile.height), "
                        + "smaller than the grid's \(tiling.tileWidth)×\(tiling.tileHeight)", object: primary.objectName
                )
            }
            tile.copyRows(
                from: 0, count: rows, rowBytes: tileWidth * 3,
                into: buffer.baseAddress! + x * 3, rowStride: width * 3)
        }
        bufferedRow = tileRow
    }
}

extension HEIFError {
    /// The first warning libheif attached while decoding `image`, if any: strict decoding should
    /// turn them into errors, and a picture decoded with warnings is not one to render.
    static func decodingWarning(of image: OpaquePointer, name: String) -> HEIFError? {
        guard heif_image_get_decoding_warnings(image, 0, nil, 0) > 0 else { return nil }
        var first = heif_error()
        _ = heif_image_get_decoding_warnings(image, 0, &first, 1)
        let warning = HEIFError(first, object: name)
        return HEIFError(
            code: .damaged, message: "libheif could only decode it with warnings: \(warning.message)", object: name,
            libheifCode: warning.libheifCode, libheifSubcode: warning.libheifSubcode)
    }
}

/// `heif_image`: the decoded pixels of one plane, standing alone (no context needed).
final class DecodedImage {
    private let pointer: OpaquePointer
    let width: Int
    let height: Int
    let bitsPerPixel: Int
    private let plane: UnsafePointer<UInt8>
    private let stride: Int

    init(owning pointer: OpaquePointer, channel: heif_channel, name: String) throws(HEIFError) {
        self.pointer = pointer
        width = Int(heif_image_get_width(pointer, channel))
        height = Int(heif_image_get_height(pointer, channel))
        bitsPerPixel = Int(heif_image_get_bits_per_pixel(pointer, channel))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(pointer, channel, &stride) else {
            heif_image_release(pointer)
            let plane = channel == heif_channel_Y ? "Y" : "interleaved RGB"
            throw HEIFError(code: .misuse, message: "libheif returned no \(plane) plane", object: name)
        }
        self.plane = plane
        self.stride = Int(stride)
    }

    func firstDecodingWarning(name: String) -> HEIFError? { HEIFError.decodingWarning(of: pointer, name: name) }

    deinit { heif_image_release(pointer) }

    func copyRows(from first: Int, count: Int, rowBytes: Int, into target: UnsafeMutableRawPointer, rowStride: Int) {
        for row in 0..<count {
            (target + row * rowStride).copyMemory(from: plane + (first + row) * stride, byteCount: rowBytes)
        }
    }
}
