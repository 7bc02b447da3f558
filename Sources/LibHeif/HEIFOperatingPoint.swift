internal import CHeif

private let a1op = UInt32(0x6131_6F70)  // "a1op"

extension PrimaryImage {
    /// Whether a layered AV1 image's `a1op` property selects an operating point (AV1-ISOBMFF: the
    /// layers a reader outputs, and so the `ispe` size). libheif 1.19.7 parses the property but
    /// neither passes it to its decoder, which outputs every layer, nor hands out its index.
    func selectsOperatingPoint() -> Bool {
        let item = heif_image_handle_get_item_id(pointer)
        let count = min(
            heif_item_get_properties_of_type(context.pointer, item, heif_item_property_type_invalid, nil, 0), 64)
        guard count > 0 else { return false }
        var ids = [heif_property_id](repeating: 0, count: Int(count))
        let listed = Int(
            heif_item_get_properties_of_type(context.pointer, item, heif_item_property_type_invalid, &ids, count))
        return ids.prefix(listed).contains { heif_item_get_property_type(context.pointer, item, $0).rawValue == a1op }
    }
}
