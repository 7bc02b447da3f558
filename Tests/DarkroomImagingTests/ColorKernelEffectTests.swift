import Foundation
import Testing

@testable import DarkroomImaging

/// The color-grading kernels against pixels computed by hand from the formulas in
/// docs/adjustment-formats.md (the arithmetic is in the comments).
@Suite struct ColorKernelEffectTests {
    func run(_ operation: ImageOperation, _ pixels: [Float]) -> [Float] {
        var copy = pixels
        copy.withUnsafeMutableBufferPointer { buffer in
            ColorKernels.apply(
                PlacedOperation(
                    operation: operation, canvas: PixelSize(width: pixels.count / 3, height: 1), offsetX: 0, offsetY: 0),
                to: LinearStrip(pixels: buffer, width: pixels.count / 3, rows: 1, firstRow: 0))
        }
        return copy
    }

    func close(_ a: [Float], _ b: [Float], tolerance: Float = 1e-5) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// Linear value of an sRGB-encoded value, in double precision (IEC 61966-2-1).
    func linear(_ encoded: Double) -> Float {
        Float(encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4))
    }

    // MARK: colorControls

    @Test func colorControlsFollowsTheFormulaInOrder() {
        // c = (0.2, 0.4, 0.6): Y = 0.2126·0.2 + 0.7152·0.4 + 0.0722·0.6 = 0.37192.
        // saturation 0.5: Y + (c − Y)/2 = (0.28596, 0.38596, 0.48596); brightness +0.1:
        // (0.38596, 0.48596, 0.58596); contrast 1.2 about 0.5: (0.363152, 0.483152, 0.603152).
        let out = run(.colorControls(saturation: 0.5, brightness: 0.1, contrast: 1.2), [0.2, 0.4, 0.6])
        #expect(close(out, [0.363152, 0.483152, 0.603152]))
        // Saturation 0 is the luma grey; the defaults change nothing.
        #expect(
            close(
                run(.colorControls(saturation: 0, brightness: 0, contrast: 1), [0.2, 0.4, 0.6]),
                [0.37192, 0.37192, 0.37192]))
        #expect(
            close(
                run(.colorControls(saturation: 1, brightness: 0, contrast: 1), [0.2, 0.4, 0.6]), [0.2, 0.4, 0.6],
                tolerance: 1e-7))
        // Contrast 0 sends everything to 0.5; results are not clamped here (the encoder clamps).
        #expect(close(run(.colorControls(saturation: 1, brightness: 0, contrast: 0), [0.1, 0.9, 0]), [0.5, 0.5, 0.5]))
        #expect(
            close(run(.colorControls(saturation: 1, brightness: 0.5, contrast: 2), [0.9, 0.1, 0]), [2.3, 0.7, 0.5]))
    }

    // MARK: colorMatrix

    @Test func colorMatrixMultipliesAndAddsTheOffset() {
        let matrix = ColorMatrix(
            rows: [0.5, 0.25, 0, 0, 1, 0, 0.1, 0.2, 0.3], offset: RGBColor(red: 0.01, green: 0, blue: -0.02))
        // r = 0.5·0.2 + 0.25·0.4 + 0.01 = 0.21; g = 0.4; b = 0.02 + 0.08 + 0.18 − 0.02 = 0.26.
        #expect(close(run(.colorMatrix(matrix), [0.2, 0.4, 0.6]), [0.21, 0.4, 0.26]))
        #expect(run(.colorMatrix(.identity), [0.2, 0.4, 0.6]) == [0.2, 0.4, 0.6])
        // Channel swap, and values above 1 pass through unclamped.
        let swap = ColorMatrix(rows: [0, 0, 1, 0, 1, 0, 2, 0, 0])
        #expect(close(run(.colorMatrix(swap), [0.7, 0.4, 0.1]), [0.1, 0.4, 1.4]))
    }

    @Test func saturationMatrixMatchesColorControls() {
        let pixel: [Float] = [0.2, 0.4, 0.6]
        for saturation: Float in [0, 0.3, 1, 1.7] {
            #expect(
                close(
                    run(.colorMatrix(.saturation(saturation)), pixel),
                    run(.colorControls(saturation: saturation, brightness: 0, contrast: 1), pixel)))
        }
        // diag(gains)·S scales output rows: the first row of instant's matrix is
        // 1.04·(0.2·0.2126 + 0.8, 0.2·0.7152, 0.2·0.0722).
        let instant = PhotoEffect.instant.look.matrix.rows
        #expect(close(Array(instant[0..<3]), [1.04 * 0.84252, 1.04 * 0.14304, 1.04 * 0.01444]))
    }

    // MARK: posterize

    @Test func posterizeQuantisesTheEncodedValue() {
        let decode = SRGB.decodeTable
        // Code 128: v = 128/255 = 0.50196; ·5 = 2.5098 → 3 → 0.6 → linear 0.3185468.
        // Code 26: v·5 = 0.5098 → 1 → 0.2 → linear 0.0331048. Code 25: v·5 = 0.4902 → 0.
        let out = run(
            .posterize(levels: 6), [decode[128], decode[26], decode[25], decode[0], decode[255], decode[230]])
        // Code 230: v·5 = 4.5098 → 5 → 1.
        #expect(close(out, [0.3185468, 0.0331048, 0, 0, 1, 1]))
        // Two levels split at v = ½: code 127 (0.498) goes black, 128 white.
        #expect(run(.posterize(levels: 2), [decode[127], decode[128], 0.5]) == [0, 1, 1])
    }

    @Test func posterizeWith256LevelsKeepsEveryCode() {
        // round(v·255)/255 is the identity on 8-bit codes.
        let codes = Array(0...255)
        let pixels = codes.map { SRGB.decodeTable[$0] }
        let out = run(.posterize(levels: 256), pixels + [0, 0])
        for code in codes {
            #expect(SRGB.encode(out[code]) == UInt8(code))
        }
    }

    @Test func posterizeClampsOutOfRangeAndNaN() {
        #expect(run(.posterize(levels: 4), [-0.5, 7, .nan]) == [0, 1, 0])
        // Every output is one of the levels' linear values, toLinear(k/3).
        let levels = (0...3).map { linear(Double($0) / 3) }
        let ramp = (0..<300).map { Float($0) / 299 }
        for value in run(.posterize(levels: 4), ramp) {
            #expect(levels.contains { abs($0 - value) < 1e-6 })
        }
    }

    // MARK: photoEffect

    @Test func monoIsTheLumaGrey() {
        // Mono: saturation 0, no curve: Y = 0.37192 on every channel.
        #expect(close(run(.photoEffect(.mono, intensity: 1), [0.2, 0.4, 0.6]), [0.37192, 0.37192, 0.37192]))
    }

    @Test func noirAppliesItsSCurveToTheEncodedLuma() {
        // Y = 0.37192 → v = 1.055·Y^(1/2.4) − 0.055 = 0.6436716;
        // S(v) = v + 0.9·(v²(3 − 2v) − v) = 0.7029858 → linear 0.4522521.
        #expect(
            close(
                run(.photoEffect(.noir, intensity: 1), [0.2, 0.4, 0.6]), [0.4522521, 0.4522521, 0.4522521],
                tolerance: 2e-5))
    }

    @Test func chromeAndInstantMatrixThenCurve() {
        // Chrome: Y + 1.35·(c − Y) = (0.139828, 0.409828, 0.679828); each through S with k = 0.35.
        #expect(
            close(
                run(.photoEffect(.chrome, intensity: 1), [0.2, 0.4, 0.6]), [0.1290523, 0.4467091, 0.7389413],
                tolerance: 2e-5))
        // Instant: (Y + 0.8·(c − Y))·(1.04, 1, 0.92) = (0.2437594, 0.394384, 0.5100333), then
        // black + (white − black)·S(v) with k = 0.1, black (0.07, 0.05, 0.03), white (1, 0.97, 0.88).
        #expect(
            close(
                run(.photoEffect(.instant, intensity: 1), [0.2, 0.4, 0.6]), [0.2793886, 0.3993736, 0.4044500],
                tolerance: 2e-5))
        // Half intensity mixes halfway with the input: ((0.2 + 0.1290523)/2, ...).
        let half: [Float] = [0.16452615, 0.42335455, 0.66947065]
        #expect(close(run(.photoEffect(.chrome, intensity: 0.5), [0.2, 0.4, 0.6]), half, tolerance: 2e-5))
        #expect(run(.photoEffect(.chrome, intensity: 0), [0.2, 0.4, 0.6]) == [0.2, 0.4, 0.6])
    }

    @Test(arguments: PhotoEffect.allCases)
    func tablesMatchTheExactCurve(_ effect: PhotoEffect) {
        // Every look, over a fine ramp of greys and some colors: the interpolated table stays
        // within 1/100 of an 8-bit step of the curve computed directly in double precision.
        let look = effect.look
        let m = look.matrix.rows
        var pixels: [Float] = []
        for step in 0...512 { pixels += [Float(step) / 512, Float(step) / 512, Float(step) / 512] }
        pixels += [0.9, 0.1, 0.05, 0.02, 0.6, 0.3, 0.001, 0.002, 0.5, 1.2, -0.1, 0.4]
        let out = run(.photoEffect(effect, intensity: 1), pixels)
        for pixel in 0..<(pixels.count / 3) {
            let c = pixels[(pixel * 3)..<(pixel * 3 + 3)].map(Double.init)
            for channel in 0..<3 {
                let mixed = (0..<3).reduce(0.0) { $0 + Double(m[channel * 3 + $1]) * c[$1] }
                let encoded =
                    mixed <= 0 ? 0 : min(1, mixed <= 0.0031308 ? mixed * 12.92 : 1.055 * pow(mixed, 1 / 2.4) - 0.055)
                let expected = linear(look.curve(encoded, channel: channel))
                #expect(abs(out[pixel * 3 + channel] - expected) < 1e-4, "\(effect) pixel \(pixel) channel \(channel)")
            }
        }
    }

    @Test func looksAreDistinctAndGreyLooksAreGrey() {
        let pixel: [Float] = [0.6, 0.3, 0.1]
        let outputs = PhotoEffect.allCases.map { run(.photoEffect($0, intensity: 1), pixel) }
        #expect(Set(outputs.map { $0.map { ($0 * 10_000).rounded() } }).count == PhotoEffect.allCases.count)
        for effect in [PhotoEffect.mono, .noir, .tonal] {
            let out = run(.photoEffect(effect, intensity: 1), pixel)
            #expect(out[0] == out[1] && out[1] == out[2], "\(effect)")
        }
    }

    // MARK: chromaKey

    @Test func chromaKeyReplacesPixelsNearTheKey() {
        let defaults = ChromaKey()  // pure green, 0.7, black
        // (0.1, 0.9, 0.2): d² = 0.01 + 0.01 + 0.04 = 0.06 < 0.49 → black.
        // (0.5, 0.5, 0.5): d² = 0.25 + 0.25 + 0.25 = 0.75 ≥ 0.49 → kept.
        #expect(run(.chromaKey(defaults), [0.1, 0.9, 0.2, 0.5, 0.5, 0.5]) == [0, 0, 0, 0.5, 0.5, 0.5])
        // Exactly at the threshold is not below it: (0, 0.5, 0) is 0.5 from green.
        #expect(run(.chromaKey(ChromaKey(threshold: 0.5)), [0, 0.5, 0]) == [0, 0.5, 0])
        #expect(run(.chromaKey(ChromaKey(threshold: 0.5001)), [0, 0.5, 0]) == [0, 0, 0])
        // Threshold 0 keys nothing, not even the key color itself.
        #expect(run(.chromaKey(ChromaKey(threshold: 0)), [0, 1, 0]) == [0, 1, 0])
    }

    @Test func chromaKeyColorsAreSRGBEncoded() {
        // Key sRGB 0.5 grey is linear 0.2140411; background sRGB (1, 0.5, 0) is linear (1, 0.2140411, 0).
        let key = ChromaKey(key: .grey(0.5), threshold: 0.01, background: RGBColor(red: 1, green: 0.5, blue: 0))
        let out = run(.chromaKey(key), [0.2140411, 0.2140411, 0.2140411, 0.5, 0.5, 0.5])
        #expect(close(out, [1, 0.2140411, 0, 0.5, 0.5, 0.5]))
    }
}
