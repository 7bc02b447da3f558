import CHeif
import LibHeif

/// How to write a HEIF: darkroom never writes one (renders are JPEG, as PhotoKit's are), so
/// this lives with the tests, which make their inputs with it, with what phones put in theirs.
/// It owns its libheif handles as LibHeif's decoder owns its own.
public struct HEIFEncoding: Sendable {
    public enum Codec: Sendable { case hevc, av1 }

    public var codec: Codec
    public var quality: Int
    public var lossless: Bool
    /// "420", "422" or "444".
    public var chroma: String
    /// EXIF orientation (1…8) to store as `irot`/`imir`: the pixels given are the stored
    /// ones, and a decoder shows them turned by this. libheif 1.15's API writes these boxes;
    /// its heif-enc tool does not.
    public var orientation: Int
    /// EXIF as a JPEG's APP1 payload (`Exif\0\0` + TIFF) or bare TIFF; libheif finds the TIFF
    /// header and writes the offset before it.
    public var exif: [UInt8]?
    /// An XMP packet for the image's `mime` item (application/rdf+xml).
    public var xmp: [UInt8]?
    /// An ICC profile for a `colr prof` box.
    public var iccProfile: [UInt8]?
    /// An nclx `colr` box (also the matrix and range the RGB pixels are coded with).
    public var nclx: HEIFColorDescription?

    public init(
        codec: Codec = .hevc, quality: Int = 90, lossless: Bool = false, chroma: String = "420", orientation: Int = 1,
        exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iccProfile: [UInt8]? = nil, nclx: HEIFColorDescription? = nil
    ) {
        self.codec = codec
        self.quality = quality
        self.lossless = lossless
        self.chroma = chroma
        self.orientation = orientation
        self.exif = exif
        self.xmp = xmp
        self.iccProfile = iccProfile
        self.nclx = nclx
    }
}

public enum HEIFEncoder {
    /// Encodes `rgb` (`width * 3` bytes a row, no padding) as a one-image HEIF file in memory.
    public static func encode(
        rgb: [UInt8], width: Int, height: Int, encoding: HEIFEncoding,
        name: String = "encoded HEIF"
    ) throws(HEIFError) -> [UInt8] {
        precondition(rgb.count == width * height * 3, "rgb holds \(rgb.count) bytes, not \(width)×\(height)×3")
        startLibheif()
        let context = try EncodingContext(name: name)
        let encoder = try Encoder(context: context, codec: encoding.codec, name: name)
        try encoder.configure(encoding)
        let image = try Image(width: width, height: height, rgb: rgb, name: name)
        try image.attach(icc: encoding.iccProfile, nclx: encoding.nclx)
        try context.add(image: image, encoder: encoder, encoding: encoding)
        return try context.write()
    }
}

// MARK: The owners

private final class EncodingContext {
    let pointer: OpaquePointer
    let name: String

    init(name: String) throws(HEIFError) {
        guard let pointer = heif_context_alloc() else {
            throw HEIFError(code: .outOfMemory, message: "could not allocate a libheif context", path: name)
        }
        self.pointer = pointer
        self.name = name
    }

    deinit { heif_context_free(pointer) }

    func add(image: Image, encoder: Encoder, encoding: HEIFEncoding) throws(HEIFError) {
        guard let options = heif_encoding_options_alloc() else {
            throw HEIFError(code: .outOfMemory, message: "could not allocate libheif encoding options", path: name)
        }
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(min(max(encoding.orientation, 1), 8)))
        // Write the nclx box when asked for one (libheif leaves it out for macOS by default).
        options.pointee.macOS_compatibility_workaround_no_nclx_profile = encoding.nclx == nil ? 1 : 0
        options.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = 1
        var handle: OpaquePointer?
        let error = heif_context_encode_image(pointer, image.pointer, encoder.pointer, options, &handle)
        defer { if let handle { heif_image_handle_release(handle) } }
        try check(error, path: name)
        if let exif = encoding.exif, let handle {
            try check(heif_context_add_exif_metadata(pointer, handle, exif, Int32(exif.count)), path: name)
        }
        if let xmp = encoding.xmp, let handle {
            try check(heif_context_add_XMP_metadata(pointer, handle, xmp, Int32(xmp.count)), path: name)
        }
    }

    func write() throws(HEIFError) -> [UInt8] {
        final class Collected { var bytes: [UInt8] = [] }
        let collected = Collected()
        var writer = heif_writer(
            writer_api_version: 1,
            write: { _, data, size, userdata in
                let collected = Unmanaged<Collected>.fromOpaque(userdata!).takeUnretainedValue()
                if let data { collected.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
                // libheif 1.19 refuses a null message, even with Ok; a static string outlives the call.
                let success: StaticString = "Success"
                return heif_error(
                    code: heif_error_Ok, subcode: heif_suberror_Unspecified,
                    message: UnsafeRawPointer(success.utf8Start).assumingMemoryBound(to: CChar.self))
            })
        try withExtendedLifetime(collected) { () throws(HEIFError) in
            try check(heif_context_write(pointer, &writer, Unmanaged.passUnretained(collected).toOpaque()), path: name)
        }
        return collected.bytes
    }
}

private final class Encoder {
    let pointer: OpaquePointer
    let name: String

    init(context: EncodingContext, codec: HEIFEncoding.Codec, name: String) throws(HEIFError) {
        var encoder: OpaquePointer?
        let format = codec == .hevc ? heif_compression_HEVC : heif_compression_AV1
        let error = heif_context_get_encoder_for_format(context.pointer, format, &encoder)
        guard error.code == heif_error_Ok, let encoder else {
            if let encoder { heif_encoder_release(encoder) }
            throw error.code == heif_error_Ok
                ? HEIFError(code: .unsupported, message: "libheif has no encoder for \(codec)", path: name)
                : HEIFError(error, path: name)
        }
        pointer = encoder
        self.name = name
    }

    deinit { heif_encoder_release(pointer) }

    func configure(_ encoding: HEIFEncoding) throws(HEIFError) {
        try check(heif_encoder_set_lossy_quality(pointer, Int32(encoding.quality)), path: name)
        try check(heif_encoder_set_lossless(pointer, encoding.lossless ? 1 : 0), path: name)
        try check(heif_encoder_set_parameter(pointer, "chroma", encoding.chroma), path: name)
        if encoding.codec == .av1 {
            try check(heif_encoder_set_parameter(pointer, "speed", "8"), path: name)
        }
    }
}

private final class Image {
    let pointer: OpaquePointer
    let name: String

    init(width: Int, height: Int, rgb: [UInt8], name: String) throws(HEIFError) {
        var image: OpaquePointer?
        let error = heif_image_create(
            Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image)
        guard error.code == heif_error_Ok, let image else {
            if let image { heif_image_release(image) }
            throw HEIFError(error, path: name)
        }
        pointer = image
        self.name = name
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8), path: name)
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw HEIFError(code: .misuse, message: "libheif gave no plane to fill", path: name)
        }
        rgb.withUnsafeBytes { source in
            for row in 0..<height {
                (plane + row * Int(stride)).update(
                    from: source.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * width * 3,
                    count: width * 3)
            }
        }
    }

    deinit { heif_image_release(pointer) }

    func attach(icc: [UInt8]?, nclx: HEIFColorDescription?) throws(HEIFError) {
        if let icc {
            try check(heif_image_set_raw_color_profile(pointer, "prof", icc, icc.count), path: name)
        }
        if let nclx {
            guard let profile = heif_nclx_color_profile_alloc() else {
                throw HEIFError(code: .outOfMemory, message: "could not allocate an nclx profile", path: name)
            }
            defer { heif_nclx_color_profile_free(profile) }
            profile.pointee.color_primaries = heif_color_primaries(rawValue: UInt32(nclx.primaries))
            profile.pointee.transfer_characteristics = heif_transfer_characteristics(rawValue: UInt32(nclx.transfer))
            profile.pointee.matrix_coefficients = heif_matrix_coefficients(rawValue: UInt32(nclx.matrix))
            profile.pointee.full_range_flag = nclx.fullRange ? 1 : 0
            try check(heif_image_set_nclx_color_profile(pointer, profile), path: name)
        }
    }
}
