import GainMaps
import Testing

/// The reconstruction against numbers computed elsewhere: libavif's (as the ultrahdr-core crate
/// tabulates them in tests/data/libavif_apply_gain.csv: weight 1, min 0, max 2 stops, gamma 1,
/// offsets 1/64) and a case worked by hand with every parameter in play.
@Suite struct GainMapMathTests {
    static let libavifCase = GainMapMetadata(
        gainMapMin: .zero, gainMapMax: SIMD3(repeating: 2), baseHeadroom: 0, alternateHeadroom: 2)

    @Test(arguments: [(0.0, 0.0), (0.5, 0.25), (1.0, 0.5), (1.5, 0.75), (2.0, 1.0), (3.0, 1.0), (-1.0, 0.0)])
    func weightFollowsTheDisplayHeadroom(display: Double, weight: Double) {
        #expect(Self.libavifCase.weight(displayHeadroom: display) == weight)
    }

    /// Rows of libavif's table: (gain-map sample, base, result).
    @Test(arguments: [
        (0.0, 0.5, 0.5), (0.25, 0.0, 0.00647208653), (0.25, 0.5, 0.71357888), (0.5, 0.01, 0.0356249996),
        (0.5, 1.0, 2.015625), (0.75, 0.18, 0.53768605), (0.75, 1.0, 2.8569963), (1.0, 0.1, 0.446875006),
        (1.0, 1.0, 4.046875),
    ])
    func applyMatchesLibavif(sample: Double, base: Double, expected: Double) {
        let out = Self.libavifCase.apply(base: SIMD3(repeating: base), sample: SIMD3(repeating: sample), weight: 1)
        // libavif computes in 32-bit floats.
        #expect(abs(out.x - expected) < 2e-6 * max(1, expected))
        #expect(out.x == out.y && out.y == out.z)
    }

    /// min −1, max 3 stops, gamma 2, offsets 0.01 and 0.02, headrooms 0 and 4, a display of 2
    /// stops (weight ½), sample 0.25: 0.25^(1/2) = 0.5 → −1 + 4·0.5 = 1 stop → ×2^0.5;
    /// (0.2 + 0.01)·√2 − 0.02 = 0.27698484809835.
    @Test func everyParameterByHand() {
        let metadata = GainMapMetadata(
            gainMapMin: SIMD3(repeating: -1), gainMapMax: SIMD3(repeating: 3), gamma: SIMD3(repeating: 2),
            baseOffset: SIMD3(repeating: 0.01), alternateOffset: SIMD3(repeating: 0.02), baseHeadroom: 0,
            alternateHeadroom: 4)
        let weight = metadata.weight(displayHeadroom: 2)
        #expect(weight == 0.5)
        let out = metadata.apply(base: SIMD3(0.2, 0.2, 0.2), sample: SIMD3(repeating: 0.25), weight: weight)
        #expect(abs(out.x - 0.27698484809835) < 1e-12)
        // At weight 0 the base comes back unchanged, offsets and all.
        #expect(abs(metadata.apply(base: SIMD3(repeating: 0.2), sample: .one, weight: 0).x - 0.19) < 1e-12)
    }

    /// An HDR base (backward direction): the full map takes it down to the SDR rendition.
    @Test func hdrBaseWeightsReverse() {
        let metadata = GainMapMetadata(
            gainMapMin: SIMD3(repeating: -2), gainMapMax: .zero, baseOffset: .zero, alternateOffset: .zero,
            baseHeadroom: 2, alternateHeadroom: 0)
        #expect(metadata.weight(displayHeadroom: 0) == 1 && metadata.weight(displayHeadroom: 2) == 0)
        #expect(metadata.weight(displayHeadroom: 1.5) == 0.25)
        #expect(metadata.apply(base: SIMD3(repeating: 4), sample: .zero, weight: 1) == SIMD3(repeating: 1))
    }

    /// A 4×2 image over a 2×1 three-channel map: each map sample covers its half of the image.
    @Test func reconstructSamplesTheMapUnderEachPixel() {
        let map = GainMapSamples(width: 2, height: 1, channels: 3, codes: [0, 255, 0, 255, 0, 255])
        let metadata = GainMapMetadata(
            gainMapMin: .zero, gainMapMax: SIMD3(repeating: 1), baseOffset: .zero, alternateOffset: .zero,
            baseHeadroom: 0, alternateHeadroom: 1)
        let base = [Double](repeating: 0.5, count: 4 * 2 * 3)
        let hdr = metadata.reconstruct(base: base, width: 4, height: 2, map: map, weight: 1)
        for y in 0..<2 {
            for x in 0..<4 {
                let pixel = Array(hdr[(y * 4 + x) * 3..<(y * 4 + x) * 3 + 3])
                #expect(pixel == (x < 2 ? [0.5, 1, 0.5] : [1, 0.5, 1]), "pixel \(x),\(y)")
            }
        }
    }
}
