internal import CHeif

/// An ISO 21496-1 gain map as HEIF stores it (ISO/IEC 23008-12's tone-mapped derived image): a
/// `tmap` item whose data are the gain map's metadata and whose `dimg` references name its
/// inputs, the base image and then the gain map, an ordinary coded image item (usually hidden).
/// Only a `tmap` whose base is the primary image is read: its gain map belongs to the picture.
public struct HEIFToneMap: Sendable, Equatable {
    /// The `tmap` item.
    public var id: UInt32
    /// The item's data: a version byte, then ISO 21496-1's metadata.
    public var data: [UInt8]
    /// The `dimg` references after the base, at most `maxListedInputs`: a valid file lists exactly
    /// one, the gain map.
    public var gainMapIDs: [UInt32]
    /// Why `data` could not be read (it is then empty): the picture does not need it, so the file
    /// still opens.
    public var dataError: HEIFError?

    static let maxListedInputs = 8
}

/// A decoded gain map image: 8-bit samples, `channels` (1 for a map coded in monochrome, else 3:
/// RGB) interleaved, rows top to bottom, no padding.
public struct HEIFGainMapImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var samples: [UInt8]
}

/// More items, or reference boxes per item, than a camera writes; past these the file is not
/// read further.
private let maxItems = 65_536
private let maxReferenceBoxes = 64
/// A `tmap` item is a few hundred bytes.
private let maxToneMapBytes = 64 << 10
private let tmap = UInt32(0x746D_6170)  // "tmap"
private let dimg = UInt32(0x6469_6D67)  // "dimg"

extension PrimaryImage {
    /// The first `tmap` item whose base (its first `dimg` input) is this image; nil without one.
    func toneMap() -> HEIFToneMap? {
        let count = min(Int(heif_context_get_number_of_items(context.pointer)), maxItems)
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_context_get_list_of_item_IDs(context.pointer, &ids, Int32(count)))
        let primary = heif_image_handle_get_item_id(pointer)
        for id in ids.prefix(listed) where heif_item_get_item_type(context.pointer, id) == tmap {
            let inputs = derivedInputs(of: id)
            guard inputs.first == primary else { continue }
            var toneMap = HEIFToneMap(id: id, data: [], gainMapIDs: Array(inputs.dropFirst()))
            let itemName = "\(name) (tmap item \(id))"
            var data: UnsafeMutablePointer<UInt8>?
            var size = 0
            let error = heif_item_get_item_data(context.pointer, id, nil, &data, &size)
            defer { heif_release_item_data(context.pointer, &data) }
            if error.code != heif_error_Ok {
                toneMap.dataError = HEIFError(error, object: itemName)
            } else if size > maxToneMapBytes {
                toneMap.dataError = HEIFError(
                    code: .tooLarge, message: "a tmap item of \(size) bytes", object: itemName)
            } else if let data {
                toneMap.data = Array(UnsafeBufferPointer(start: data, count: size))
            }
            return toneMap
        }
        return nil
    }

    /// The item's `dimg` references, in order: at most one more than `HEIFToneMap.maxListedInputs`.
    private func derivedInputs(of item: heif_item_id) -> [heif_item_id] {
        for index in 0..<maxReferenceBoxes {
            var type: UInt32 = 0
            var references: UnsafeMutablePointer<heif_item_id>?
            let count = heif_context_get_item_references(context.pointer, item, Int32(index), &type, &references)
            defer { if references != nil { heif_release_item_references(context.pointer, &references) } }
            guard count > 0, let references else { return [] }
            if type == dimg {
                return Array(UnsafeBufferPointer(start: references, count: min(count, HEIFToneMap.maxListedInputs + 1)))
            }
        }
        return []
    }

    /// Decodes the gain map `toneMap` names, after its own `irot`, `imir` and `clap` (ISO/IEC
    /// 23008-12 applies an input's transformative properties before the derivation, so the map is
    /// aligned with the primary image as displayed). Refused: a `tmap` that does not name exactly
    /// one gain map, one that is the primary or the `tmap` itself or no image, a `tmap` with
    /// transformations of its own (its HDR rendition would not have the primary's shape), and a
    /// map more than twice the primary per side.
    func decodeToneMapGainMap(_ toneMap: HEIFToneMap) throws(HEIFError) -> HEIFGainMapImage {
        let mapName = "\(name) (tmap item \(toneMap.id))"
        guard toneMap.gainMapIDs.count == 1, let id = toneMap.gainMapIDs.first else {
            throw HEIFError(
                code: .corrupt,
                message: "its dimg lists \(toneMap.gainMapIDs.count + 1) inputs, not the base image and its gain map",
                object: mapName)
        }
        guard id != heif_image_handle_get_item_id(pointer), id != toneMap.id else {
            throw HEIFError(
                code: .corrupt,
                message: "its gain map, item \(id), is the \(id == toneMap.id ? "tmap" : "base") itself",
                object: mapName)
        }
        try checkNoTransforms(of: toneMap.id, name: mapName)
        return try withImage(id, describedAs: "its gain map", name: mapName) { handle throws(HEIFError) in
            let size = (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
            let picture = (Int(heif_image_handle_get_width(pointer)), Int(heif_image_handle_get_height(pointer)))
            guard size.0 > 0, size.1 > 0, size.0 <= 2 * picture.0, size.1 <= 2 * picture.1 else {
                throw HEIFError(
                    code: .tooLarge,
                    message: "its gain map, item \(id), is \(size.0)×\(size.1) for a \(picture.0)×\(picture.1) picture",
                    object: mapName)
            }
            return try decodeMap(handle, width: size.0, height: size.1, name: "\(name) (gain map item \(id))")
        }
    }

    private func checkNoTransforms(of item: heif_item_id, name: String) throws(HEIFError) {
        let count = min(heif_item_get_transformation_properties(context.pointer, item, nil, 0), 64)
        guard count > 0 else { return }
        var ids = [heif_property_id](repeating: 0, count: Int(count))
        _ = heif_item_get_transformation_properties(context.pointer, item, &ids, count)
        for property in ids {
            let type = heif_item_get_property_type(context.pointer, item, property)
            // Samsung writes an irot of 0°, which changes nothing.
            if type == heif_item_property_type_transform_rotation,
                heif_item_get_property_transform_rotation_ccw(context.pointer, item, property) == 0
            {
                continue
            }
            throw HEIFError(
                code: .unsupported,
                message: "the tmap item has its own irot, imir or clap, so its HDR picture is not the primary's shape",
                object: name)
        }
    }

    /// A map coded in monochrome decodes to its one channel; any other to RGB (libheif has no
    /// conversion from YCbCr to monochrome), as displayed. Strict, 8-bit.
    private func decodeMap(_ handle: OpaquePointer, width: Int, height: Int, name: String) throws(HEIFError)
        -> HEIFGainMapImage
    {
        var colorspace = heif_colorspace_undefined
        var chroma = heif_chroma_undefined
        try check(heif_image_handle_get_preferred_decoding_colorspace(handle, &colorspace, &chroma), object: name)
        let grey = chroma == heif_chroma_monochrome
        // The map as displayed: its own irot, imir and clap applied.
        let owner = DecodingOptions(ignoreTransformations: false)
        defer { withExtendedLifetime(owner) {} }
        let options = try owner.pointer(name: name)
        let map = try decoded(name: name, channel: grey ? heif_channel_Y : heif_channel_interleaved) { image in
            grey
                ? heif_decode_image(handle, &image, heif_colorspace_monochrome, heif_chroma_monochrome, options)
                : heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
        }
        let channels = grey ? 1 : 3
        guard map.width == width, map.height == height, map.bitsPerPixel == 8 * channels else {
            throw HEIFError(
                code: .corrupt, message: "it does not decode to the 8-bit \(width)×\(height) image it says it is",
                object: name)
        }
        let rowBytes = width * channels
        var samples = [UInt8](repeating: 0, count: rowBytes * height)
        samples.withUnsafeMutableBytes { target in
            map.copyRows(from: 0, count: height, rowBytes: rowBytes, into: target.baseAddress!, rowStride: rowBytes)
        }
        return HEIFGainMapImage(width: width, height: height, channels: channels, samples: samples)
    }
}

extension HEIFDecoder {
    /// Decodes the gain map of `header.toneMap` (see `HEIFToneMap`), aligned with the primary
    /// image as displayed. Only before `start`: an image coded whole lets go of the file once
    /// decoded.
    public func decodeToneMapGainMap() throws(HEIFError) -> HEIFGainMapImage {
        guard let primary = primaryBeforeStart else {
            throw HEIFError(code: .misuse, message: "decodeToneMapGainMap after start", object: objectName)
        }
        guard let toneMap = header.toneMap else {
            throw HEIFError(code: .misuse, message: "the file has no tmap item", object: objectName)
        }
        return try primary.decodeToneMapGainMap(toneMap)
    }
}
