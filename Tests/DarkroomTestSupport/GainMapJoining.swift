import GainMaps

extension GainMapJPEGWriter {
    /// A primary held whole and a gain map's JPEG joined by the rules a render joins with
    /// (`insertionOffset`, `layout`): how the tests make Ultra HDR files of their own.
    public static func join(primary: [UInt8], gainMap: [UInt8], metadata: GainMapMetadata) throws -> [UInt8] {
        let insertAt = insertionOffset { offset in
            offset + 4 <= primary.count ? Array(primary[offset..<offset + 4]) : nil
        }
        let parts = try layout(insertAt: insertAt, primaryLength: primary.count, gainMap: gainMap, metadata: metadata)
        return Array(primary[..<insertAt]) + parts.inserted + primary[insertAt...] + parts.secondary
    }
}
