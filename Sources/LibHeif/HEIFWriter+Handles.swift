internal import CHeif

// The owners of what libheif hands out while `HEIFWriter` writes: each handle belongs to exactly
// one noncopyable value, released by its `deinit` on every path (a throw included), and no
// pointer leaves this file. libheif counts its own references, so a handle outliving another
// is safe.

/// `heif_context`: the file being written, its coded image and metadata items.
struct WritingContext: ~Copyable {
    fileprivate let pointer: OpaquePointer
    let name: String

    init(name: String) throws(HEIFError) {
        guard let pointer = heif_context_alloc() else {
            throw HEIFError.writing(.outOfMemory, "could not allocate a libheif context", object: name)
        }
        self.pointer = pointer
        self.name = name
    }

    deinit { heif_context_free(pointer) }

    /// Codes `image` into the file (its primary image); the handle of the coded image.
    func encode(_ image: borrowing InputImage, with encoder: borrowing EncoderHandle, settings: HEIFWriteSettings)
        throws(HEIFError) -> EncodedImage
    {
        let options = try EncodingOptions(name: name)
        options.pointer.pointee.image_orientation = heif_orientation(rawValue: UInt32(settings.orientation))
        // Write an nclx box only when one is given (libheif would write its default otherwise).
        options.pointer.pointee.macOS_compatibility_workaround_no_nclx_profile = settings.nclx == nil ? 1 : 0
        options.pointer.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = 1
        var handle: OpaquePointer?
        let error = heif_context_encode_image(pointer, image.pointer, encoder.pointer, options.pointer, &handle)
        guard error.code == heif_error_Ok, let handle else {
            if let handle { heif_image_handle_release(handle) }
            throw error.code == heif_error_Ok
                ? HEIFError.writing(.misuse, "libheif coded the image but returned no handle", object: name)
                : HEIFError(writing: error, object: name)
        }
        return EncodedImage(pointer: handle)
    }

    /// libheif copies the block and writes the offset to its TIFF header before it.
    func addExif(_ exif: [UInt8], to image: borrowing EncodedImage) throws(HEIFError) {
        let error = heif_context_add_exif_metadata(pointer, image.pointer, exif, Int32(exif.count))
        if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
    }

    func addXMP(_ xmp: [UInt8], to image: borrowing EncodedImage) throws(HEIFError) {
        let error = heif_context_add_XMP_metadata(pointer, image.pointer, xmp, Int32(xmp.count))
        if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
    }

    /// Codes `gainMap` as a second image and adds the `tmap` item deriving the HDR picture from
    /// `base` (the primary, `width` × `height`) and it; the items `HEIFToneMapLayout` then groups.
    func addGainMap(
        _ gainMap: HEIFGainMapPicture, to base: borrowing EncodedImage, width: Int, height: Int,
        settings: HEIFWriteSettings
    ) throws(HEIFError) -> HEIFToneMapLayout.Items {
        var mapSettings = settings
        (mapSettings.exif, mapSettings.xmp, mapSettings.iccProfile) = (nil, nil, nil)
        mapSettings.chroma = .yuv444
        mapSettings.nclx = HEIFGainMapPicture.nclx
        let map: EncodedImage
        do {
            let image = try InputImage(
                width: gainMap.width, height: gainMap.height, channels: gainMap.channels, name: name)
            try gainMap.samples.withUnsafeBufferPointer { samples throws(HEIFError) in try image.fill(from: samples) }
            try image.describe(iccProfile: nil, nclx: mapSettings.nclx)
            let encoder = try EncoderHandle(context: self, codec: mapSettings.codec, name: name)
            try encoder.configure(mapSettings, monochrome: gainMap.channels == 1)
            map = try encode(image, with: encoder, settings: mapSettings)
        }
        try check(heif_context_set_primary_image(pointer, base.pointer))
        var toneMap: heif_item_id = 0
        let data = gainMap.toneMapItem
        try check(heif_context_add_item(pointer, "tmap", data, Int32(data.count), &toneMap))
        let inputs = [heif_image_handle_get_item_id(base.pointer), heif_image_handle_get_item_id(map.pointer)]
        try check(heif_context_add_item_references(pointer, fourCC("dimg"), toneMap, inputs, 2))
        // Every image item has an `ispe`; a derived one's is the picture it makes (the base's size).
        let ispe: [UInt8] =
            [0, 0, 0, 0] + HEIFToneMapLayout.bigEndian(UInt32(width)) + HEIFToneMapLayout.bigEndian(UInt32(height))
        try check(heif_item_add_raw_property(pointer, toneMap, fourCC("ispe"), nil, ispe, ispe.count, 0, nil))
        return HEIFToneMapLayout.Items(primary: inputs[0], toneMap: toneMap, gainMap: inputs[1])
    }

    private func check(_ error: heif_error) throws(HEIFError) {
        if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
    }

    /// The whole file: libheif lays it out in memory and hands it over in one call of the writer.
    func write() throws(HEIFError) -> [UInt8] {
        let collected = WrittenBytes()
        var writer = heif_writer(
            writer_api_version: 1,
            write: { _, data, size, userdata in
                if let data, let userdata {
                    let collected = Unmanaged<WrittenBytes>.fromOpaque(userdata).takeUnretainedValue()
                    collected.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
                }
                // libheif 1.19 refuses a null message, even with Ok; a static string outlives the call.
                return heif_error(
                    code: heif_error_Ok, subcode: heif_suberror_Unspecified,
                    message: UnsafeRawPointer(writerSuccess.utf8Start).assumingMemoryBound(to: CChar.self))
            })
        let error = withExtendedLifetime(collected) {
            heif_context_write(pointer, &writer, Unmanaged.passUnretained(collected).toOpaque())
        }
        if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
        return collected.bytes
    }
}

/// What the writer callback appends to; it lives through `heif_context_write` only.
private final class WrittenBytes {
    var bytes: [UInt8] = []
}

private let writerSuccess: StaticString = "Success"

/// `heif_encoder`: AOM's for AV1 (by name: the speed and the memory bound are AOM's), libheif's
/// first for HEVC (x265).
struct EncoderHandle: ~Copyable {
    fileprivate let pointer: OpaquePointer
    let name: String

    init(context: borrowing WritingContext, codec: HEIFCodec, name: String) throws(HEIFError) {
        var encoder: OpaquePointer?
        let error: heif_error
        switch codec {
        case .av1:
            var descriptor: OpaquePointer?
            guard heif_get_encoder_descriptors(heif_compression_AV1, "aom", &descriptor, 1) == 1, let descriptor
            else {
                throw HEIFError.writing(
                    .unsupported,
                    "libheif has no AOM AV1 encoder: install libheif-plugin-aomenc "
                        + "(deploy/apt/bookworm-backports-libheif.sh)", object: name)
            }
            error = heif_context_get_encoder(context.pointer, descriptor, &encoder)
        case .hevc:
            error = heif_context_get_encoder_for_format(context.pointer, heif_compression_HEVC, &encoder)
        }
        guard error.code == heif_error_Ok, let encoder else {
            if let encoder { heif_encoder_release(encoder) }
            throw error.code == heif_error_Ok
                ? HEIFError.writing(
                    .unsupported, "libheif has no \(codec == .av1 ? "AV1" : "HEVC") encoder: install its plugin",
                    object: name)
                : HEIFError(writing: error, object: name)
        }
        pointer = encoder
        self.name = name
    }

    deinit { heif_encoder_release(pointer) }

    /// `monochrome`: a grey picture, coded without chroma (the chroma setting is not used).
    func configure(_ settings: HEIFWriteSettings, monochrome: Bool = false) throws(HEIFError) {
        try set(heif_encoder_set_lossy_quality(pointer, Int32(settings.quality)))
        try set(heif_encoder_set_lossless(pointer, settings.lossless ? 1 : 0))
        if !monochrome { try set(heif_encoder_set_parameter(pointer, "chroma", settings.chroma.rawValue)) }
        if settings.codec == .av1 {
            try set(heif_encoder_set_parameter_integer(pointer, "speed", Int32(settings.speed)))
            // The plugin's default is the machine's cores; `workingBytes` is measured for one.
            try set(heif_encoder_set_parameter_integer(pointer, "threads", 1))
        }
    }

    private func set(_ error: heif_error) throws(HEIFError) {
        if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
    }
}

/// `heif_encoding_options`.
private struct EncodingOptions: ~Copyable {
    fileprivate let pointer: UnsafeMutablePointer<heif_encoding_options>

    init(name: String) throws(HEIFError) {
        guard let pointer = heif_encoding_options_alloc() else {
            throw HEIFError.writing(.outOfMemory, "could not allocate libheif encoding options", object: name)
        }
        self.pointer = pointer
    }

    deinit { heif_encoding_options_free(pointer) }
}

/// `heif_image`: libheif's copy of the caller's pixels, interleaved RGB (3 channels) or grey (1).
struct InputImage: ~Copyable {
    fileprivate let pointer: OpaquePointer
    let width: Int
    let height: Int
    let channels: Int
    let name: String

    init(width: Int, height: Int, channels: Int, name: String) throws(HEIFError) {
        precondition(channels == 1 || channels == 3)
        var image: OpaquePointer?
        let error =
            channels == 3
            ? heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image)
            : heif_image_create(Int32(width), Int32(height), heif_colorspace_monochrome, heif_chroma_monochrome, &image)
        guard error.code == heif_error_Ok, let image else {
            if let image { heif_image_release(image) }
            throw error.code == heif_error_Ok
                ? HEIFError.writing(.outOfMemory, "libheif created no image", object: name)
                : HEIFError(writing: error, object: name)
        }
        pointer = image
        self.width = width
        self.height = height
        self.channels = channels
        self.name = name
    }

    deinit { heif_image_release(pointer) }

    /// Adds the plane and copies `samples` (`width * channels` bytes a row) into it, row by row:
    /// libheif's rows may be padded.
    func fill(from samples: UnsafeBufferPointer<UInt8>) throws(HEIFError) {
        precondition(samples.count == width * height * channels)
        let channel = channels == 3 ? heif_channel_interleaved : heif_channel_Y
        let error = heif_image_add_plane(pointer, channel, Int32(width), Int32(height), 8)
        if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
        let rowBytes = width * channels
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(pointer, channel, &stride), Int(stride) >= rowBytes else {
            throw HEIFError.writing(.misuse, "libheif gave no plane of \(width) pixels to fill", object: name)
        }
        guard let source = samples.baseAddress else { return }
        for row in 0..<height {
            (plane + row * Int(stride)).update(from: source + row * rowBytes, count: rowBytes)
        }
    }

    /// The `colr` boxes: an ICC profile as given, an nclx description (which also sets the matrix
    /// and range libheif codes the RGB pixels with).
    func describe(iccProfile: [UInt8]?, nclx: HEIFColorDescription?) throws(HEIFError) {
        if let iccProfile {
            let error = heif_image_set_raw_color_profile(pointer, "prof", iccProfile, iccProfile.count)
            if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
        }
        if let nclx {
            guard let profile = heif_nclx_color_profile_alloc() else {
                throw HEIFError.writing(.outOfMemory, "could not allocate an nclx profile", object: name)
            }
            defer { heif_nclx_color_profile_free(profile) }
            profile.pointee.color_primaries = heif_color_primaries(rawValue: UInt32(clamping: nclx.primaries))
            profile.pointee.transfer_characteristics = heif_transfer_characteristics(
                rawValue: UInt32(clamping: nclx.transfer))
            profile.pointee.matrix_coefficients = heif_matrix_coefficients(rawValue: UInt32(clamping: nclx.matrix))
            profile.pointee.full_range_flag = nclx.fullRange ? 1 : 0
            let error = heif_image_set_nclx_color_profile(pointer, profile)
            if error.code != heif_error_Ok { throw HEIFError(writing: error, object: name) }
        }
    }
}

/// `heif_image_handle` of the coded image, which its metadata items are attached to.
struct EncodedImage: ~Copyable {
    fileprivate let pointer: OpaquePointer

    deinit { heif_image_handle_release(pointer) }
}

private func fourCC(_ code: StaticString) -> UInt32 {
    code.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
}
