extension WebPEncoder {
    /// The most memory libwebp and this module hold at once while encoding a `width`×`height`
    /// picture, beyond the caller's RGB buffer: the YUV picture, the encoder's buffers, its
    /// output, the assembled file with metadata up to `WebPMetadata.maxTotalBytes`, and the
    /// returned array. An upper bound for any settings and content, for the memory planner.
    /// Sizes beyond WebP's limit are priced at the limit: `encode` refuses them unallocated.
    ///
    /// Measured with libwebp 1.2.4 (Debian 12), configured as `encode` configures it
    /// (`low_memory`, one thread), by counting every malloc's usable size: qualities 80 and 100,
    /// methods 0–6, sizes from 1×1 to 4000×4000 and 16383×16, camera photos, uniform and
    /// black-and-white noise (the worst: every coefficient coded, the largest output). The peak
    /// was at most 11.3 bytes per pixel of whole 16×16 macroblocks (black-and-white noise,
    /// quality 100, methods 0–2), 1.9–2.9 for photos; a 1×1 picture took 34 KB, 2.1 MB with
    /// 1 MB of metadata. 16 bytes a pixel, 256 KB and the metadata three times over (the mux's
    /// copy, the assembled file, the returned array) bound them all, the closest at 0.67.
    public static func workingBytes(width: Int, height: Int) -> Int {
        // VP8 codes whole macroblocks: a 1-pixel-high picture costs 16 rows of buffers.
        func padded(_ side: Int) -> Int { (min(max(side, 1), maxDimension) + 15) / 16 * 16 }
        return padded(width) * padded(height) * 16 + 256 * 1024 + 3 * WebPMetadata.maxTotalBytes
    }
}
