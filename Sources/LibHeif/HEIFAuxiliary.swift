internal import CHeif

/// An auxiliary image of the primary one (`auxC`), as libheif lists it: its type URN, its size
/// (as coded), and its own XMP packet, if it has one.
public struct HEIFAuxiliaryImage: Sendable, Equatable {
    public var id: UInt32
    /// `urn:com:apple:photo:2020:aux:hdrgainmap` for Apple's HDR gain map.
    public var type: String
    public var width: Int
    public var height: Int
    public var xmp: [UInt8]?

    /// Apple's HDR gain map.
    public static let appleGainMapType = "urn:com:apple:photo:2020:aux:hdrgainmap"
}

/// A decoded single-channel image: 8-bit samples, rows top to bottom, no padding.
public struct HEIFGreyImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var samples: [UInt8]
}

/// More auxiliary images than a camera writes; past these the file is not read further.
private let maxAuxiliaryImages = 64

extension PrimaryImage {
    /// Auxiliary images other than alpha and depth, in the file's order.
    func auxiliaryImages() throws(HEIFError) -> [HEIFAuxiliaryImage] {
        let filter = Int32(LIBHEIF_AUX_IMAGE_FILTER_OMIT_ALPHA | LIBHEIF_AUX_IMAGE_FILTER_OMIT_DEPTH)
        let count = min(Int(heif_image_handle_get_number_of_auxiliary_images(pointer, filter)), maxAuxiliaryImages)
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_auxiliary_image_IDs(pointer, filter, &ids, Int32(count)))
        var images: [HEIFAuxiliaryImage] = []
        for id in ids.prefix(listed) {
            try withAuxiliary(id) { handle throws(HEIFError) in
                var type: UnsafePointer<CChar>?
                try check(heif_image_handle_get_auxiliary_type(handle, &type), object: name)
                defer { heif_image_handle_release_auxiliary_type(handle, &type) }
                images.append(
                    HEIFAuxiliaryImage(
                        id: id, type: type.map { String(cString: $0) } ?? "",
                        width: Int(heif_image_handle_get_width(handle)),
                        height: Int(heif_image_handle_get_height(handle)), xmp: try xmp(of: handle)))
            }
        }
        return images
    }

    /// Decodes auxiliary image `id` to 8-bit greyscale, as coded.
    func decodeAuxiliary(_ id: UInt32) throws(HEIFError) -> HEIFGreyImage {
        try withAuxiliary(id) { handle throws(HEIFError) in
            let auxiliaryName = "\(name) (auxiliary image \(id))"
            var image: OpaquePointer?
            let error = heif_decode_image(handle, &image, heif_colorspace_monochrome, heif_chroma_monochrome, nil)
            guard error.code == heif_error_Ok, let image else {
                if let image { heif_image_release(image) }
                throw error.code == heif_error_Ok
                    ? HEIFError(code: .damaged, message: "libheif decoded no image", object: auxiliaryName)
                    : HEIFError(error, object: auxiliaryName)
            }
            defer { heif_image_release(image) }
            let width = Int(heif_image_get_width(image, heif_channel_Y))
            let height = Int(heif_image_get_height(image, heif_channel_Y))
            var stride: Int32 = 0
            guard width > 0, height > 0, heif_image_get_bits_per_pixel(image, heif_channel_Y) == 8,
                let plane = heif_image_get_plane_readonly(image, heif_channel_Y, &stride)
            else {
                throw HEIFError(code: .unsupported, message: "not an 8-bit greyscale image", object: auxiliaryName)
            }
            var samples = [UInt8](repeating: 0, count: width * height)
            samples.withUnsafeMutableBytes { target in
                for row in 0..<height {
                    (target.baseAddress! + row * width).copyMemory(
                        from: plane + row * Int(stride), byteCount: width)
                }
            }
            return HEIFGreyImage(width: width, height: height, samples: samples)
        }
    }

    private func withAuxiliary<T>(_ id: UInt32, _ body: (OpaquePointer) throws(HEIFError) -> T) throws(HEIFError) -> T {
        var handle: OpaquePointer?
        let error = heif_image_handle_get_auxiliary_image_handle(pointer, id, &handle)
        guard error.code == heif_error_Ok, let handle else {
            if let handle { heif_image_handle_release(handle) }
            throw HEIFError(error, object: name)
        }
        defer { heif_image_handle_release(handle) }
        return try body(handle)
    }

    /// The handle's XMP packet (a `mime` item of type application/rdf+xml), if any: an auxiliary
    /// image's, or the primary's (its capture date and location, when EXIF has none).
    func xmp(of handle: OpaquePointer) throws(HEIFError) -> [UInt8]? {
        let count = min(Int(heif_image_handle_get_number_of_metadata_blocks(handle, "mime")), maxAuxiliaryImages)
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        _ = heif_image_handle_get_list_of_metadata_block_IDs(handle, "mime", &ids, Int32(count))
        for id in ids {
            guard let type = heif_image_handle_get_metadata_content_type(handle, id),
                String(cString: type) == "application/rdf+xml"
            else { continue }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0, size <= 1 << 20 else { continue }
            var packet = [UInt8](repeating: 0, count: size)
            try check(heif_image_handle_get_metadata(handle, id, &packet), object: name)
            return packet
        }
        return nil
    }
}

extension HEIFDecoder {
    /// Decodes auxiliary image `id` (one of `header.auxiliaryImages`) to 8-bit greyscale, as
    /// coded. Only before `start`: an image coded whole lets go of the file once decoded.
    public func decodeAuxiliary(_ id: UInt32) throws(HEIFError) -> HEIFGreyImage {
        guard let primary = primaryBeforeStart else {
            throw HEIFError(code: .misuse, message: "decodeAuxiliary after start", object: objectName)
        }
        return try primary.decodeAuxiliary(id)
    }
}
