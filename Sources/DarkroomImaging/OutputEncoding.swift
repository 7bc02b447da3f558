import JPEGTurbo

/// How a render's JPEG is encoded: what callers choose. Huffman optimisation is not here: the
/// planner decides it from the budget (`RenderPlanner.HuffmanOptimisation`).
public struct OutputEncoding: Sendable, Equatable {
    /// 1–100.
    public var quality: Int
    /// 4:4:4 when true, 4:2:0 when false; nil leaves it to the encoder's default, which
    /// follows quality (`JPEGEncoding` owns that rule).
    public var fullChroma: Bool?

    public init(quality: Int, fullChroma: Bool? = nil) {
        self.quality = quality
        self.fullChroma = fullChroma
    }

    /// The quality renders are written at unless told otherwise: the one home of the default
    /// (the worker, `darkroom render` and the thumbnails take it from here).
    public static let defaultQuality = 92
    /// libjpeg's scale.
    public static let qualities = 1...100
    /// The chroma subsampling the encoder uses, as records spell it: "4:4:4" or "4:2:0".
    public var chromaSubsampling: String { jpeg.fullChroma ? "4:4:4" : "4:2:0" }

    /// The encoder's settings, chroma resolved.
    var jpeg: JPEGEncoding { JPEGEncoding(quality: quality, fullChroma: fullChroma) }
}
