import Testing

@testable import DarkroomImaging

/// Each operation against values computed by hand from the formulas in the issue.
@Suite struct ColorKernelTests {
    /// Runs one placed operation over `pixels` (one row unless `width` says otherwise).
    func run(_ step: PlacedOperation, _ pixels: [Float], width: Int? = nil, firstRow: Int = 0) -> [Float] {
        var copy = pixels
        let columns = width ?? pixels.count / 3
        copy.withUnsafeMutableBufferPointer { buffer in
            ColorKernels.apply(
                step,
                to: LinearStrip(pixels: buffer, width: columns, rows: pixels.count / 3 / columns, firstRow: firstRow))
        }
        return copy
    }

    func place(_ operation: ImageOperation, canvas: PixelSize = PixelSize(width: 1, height: 1), x: Int = 0, y: Int = 0)
        -> PlacedOperation
    {
        PlacedOperation(operation: operation, canvas: canvas, offsetX: x, offsetY: y)
    }

    func close(_ a: [Float], _ b: [Float], tolerance: Float = 1e-5) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func exposureDoublesPerStop() {
        #expect(close(run(place(.exposure(ev: 1)), [0.1, 0.2, 0.3]), [0.2, 0.4, 0.6]))
        #expect(close(run(place(.exposure(ev: -2)), [0.4, 0.8, 1.0]), [0.1, 0.2, 0.25]))
        #expect(run(place(.exposure(ev: 0)), [0.5, 0.25, 0.125]) == [0.5, 0.25, 0.125])
    }

    @Test func sepiaAppliesTheMatrixAndClamps() {
        // (0.2, 0.4, 0.6): M·c = (0.0786+0.3076+0.1134, 0.0698+0.2744+0.1008, 0.0544+0.2136+0.0786)
        let full = run(place(.sepia(intensity: 1)), [0.2, 0.4, 0.6])
        #expect(close(full, [0.4996, 0.4450, 0.3466]))
        // White exceeds 1 in the red and green rows and is clamped: (1.351, 1.203, 0.937).
        #expect(close(run(place(.sepia(intensity: 1)), [1, 1, 1]), [1, 1, 0.937]))
        // Half intensity mixes halfway: (0.2+0.4996)/2 ...
        #expect(close(run(place(.sepia(intensity: 0.5)), [0.2, 0.4, 0.6]), [0.3498, 0.4225, 0.4733]))
        #expect(run(place(.sepia(intensity: 0)), [0.2, 0.4, 0.6]) == [0.2, 0.4, 0.6])
    }

    @Test func vignetteFollowsTheSmoothstepFalloff() {
        // A 4×2 canvas: centre (2, 1), half diagonal √20/2 = 2.2360680.
        let canvas = PixelSize(width: 4, height: 2)
        let grey = [Float](repeating: 0.5, count: 4 * 2 * 3)
        let out = run(place(.vignette(intensity: 1, radius: 1), canvas: canvas), grey, width: 4)
        // Pixel (0,0): centre (0.5, 0.5), distance √(2.25+0.25) = 1.5811388; t = 0.7071068;
        // s = t²(3−2t) = 0.5·1.5857864 = 0.7928932; factor 0.2071068.
        #expect(abs(out[0] - 0.5 * 0.2071068) < 1e-5)
        // Pixel (1,0): distance √(0.25+0.25) = 0.7071068; t = 0.3162278; s = 0.1 · 2.3675445 = 0.2367544.
        #expect(abs(out[3] - 0.5 * (1 - 0.2367544)) < 1e-5)
        // Symmetric about the centre.
        #expect(abs(out[0] - out[(1 * 4 + 3) * 3]) < 1e-6)
    }

    @Test func vignetteIntensityBeyondOneAndNegative() {
        let canvas = PixelSize(width: 4, height: 2)
        let grey = [Float](repeating: 0.5, count: 24)
        // Intensity 5 at the corner: 1 − 5·0.7928932 < 0 → black, never negative.
        #expect(run(place(.vignette(intensity: 5, radius: 1), canvas: canvas), grey, width: 4)[0] == 0)
        // Negative intensity brightens: factor 1 + 0.7928932.
        let bright = run(place(.vignette(intensity: -1, radius: 1), canvas: canvas), grey, width: 4)
        #expect(abs(bright[0] - 0.5 * 1.7928932) < 1e-5)
        // Radius 0 vignettes everything fully (no division by zero at the centre).
        #expect(run(place(.vignette(intensity: 1, radius: 0), canvas: canvas), grey, width: 4).allSatisfy { $0 == 0 })
    }

    @Test func vignetteUsesTheCanvasPositionOfEachRow() {
        // The same pixel computed as row 1 of a 1-row strip and as row 1 of a 2-row strip.
        let canvas = PixelSize(width: 4, height: 2)
        let whole = run(
            place(.vignette(intensity: 1, radius: 1), canvas: canvas), [Float](repeating: 0.5, count: 24), width: 4)
        let secondRow = run(
            place(.vignette(intensity: 1, radius: 1), canvas: canvas), [Float](repeating: 0.5, count: 12), width: 4,
            firstRow: 1)
        #expect(Array(whole[12...]) == secondRow)
    }

    /// Columns mirrored about the centre share factors; whatever the canvas parity, the
    /// offset or the strip width, each pixel gets exactly the formula's value.
    @Test func vignetteMirroredColumnsMatchTheFormula() {
        for (canvasWidth, offsetX, width) in [
            (9, 0, 9), (10, 0, 10), (10, 3, 5), (10, 0, 4), (10, 6, 4), (11, 2, 9), (7, -3, 4), (1, 0, 1),
        ] {
            let canvas = PixelSize(width: canvasWidth, height: 3)
            let (intensity, radius): (Float, Float) = (1.2, 0.7)
            let out = run(
                place(.vignette(intensity: intensity, radius: radius), canvas: canvas, x: offsetX, y: 1),
                [Float](repeating: 1, count: width * 3), width: width)
            let reach = Float(Double(canvasWidth * canvasWidth + 9).squareRoot() / 2) * radius
            let dy = Float(1) + 0.5 - Float(3) / 2
            for x in 0..<width {
                let dx = Float(offsetX) + 0.5 - Float(canvasWidth) / 2 + Float(x)
                let t = min((dx * dx + dy * dy).squareRoot() * (1 / reach), 1)
                let factor = max(1 - intensity * (t * t * (3 - 2 * t)), 0)
                #expect(
                    out[x * 3] == factor && out[x * 3 + 2] == factor,
                    "canvas \(canvasWidth) offset \(offsetX) column \(x)")
            }
        }
    }

    @Test func srgbRoundTripKeepsEveryCode() {
        for code in 0...255 {
            #expect(SRGB.encode(SRGB.decodeTable[code]) == UInt8(code))
        }
        #expect(SRGB.encode(.nan) == 0)
        #expect(SRGB.encode(-1) == 0)
        #expect(SRGB.encode(7) == 255)
        #expect(SRGB.encode(.infinity) == 255)
        #expect(abs(SRGB.decodeTable[128] - 0.2158605) < 1e-6)
    }

    /// The encoder rounds `255 · fromLinear(x)` to nearest exactly: checked against double
    /// precision on a spread of floats across [0, 1] and on each side of every threshold.
    @Test func srgbEncodeRoundsExactly() {
        func expected(_ value: Float) -> UInt8? {
            let scaled = SRGB.fromLinear(Double(value)) * 255
            // Too close to a half for double precision to say which side it is on.
            if abs(scaled - scaled.rounded(.down) - 0.5) < 1e-9 { return nil }
            return UInt8(scaled.rounded())
        }
        var values: [Float] = stride(from: UInt32(0), through: Float(1).bitPattern, by: 4_099).map {
            Float(bitPattern: $0)
        }
        for code in 1...255 {
            let threshold = Float(SRGB.toLinear((Double(code) - 0.5) / 255))
            values += [
                threshold.nextDown.nextDown, threshold.nextDown, threshold, threshold.nextUp, threshold.nextUp.nextUp,
            ]
        }
        var mismatches = 0
        for value in values {
            if let code = expected(value), SRGB.encode(value) != code { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The eight-wide row encoder and the one-value encoder agree, out-of-range values and
    /// NaN included, whatever the count's remainder.
    @Test func srgbRowEncodeMatchesSingleValues() {
        var values: [Float] = [
            .nan, -.nan, -1, -0.0, 0, .leastNonzeroMagnitude, 1e-5, 0x1p-13, 0.5, 1, 1.5, .infinity, -.infinity,
        ]
        values += (0..<1_000).map { Float($0) / 999 }
        values += (1...255).map { SRGB.decodeTable[$0].nextDown }
        for count in [values.count, values.count - 3, 5] {
            var codes = [UInt8](repeating: 0, count: count)
            values.withUnsafeBufferPointer { linear in
                codes.withUnsafeMutableBufferPointer {
                    SRGB.encode(linear.baseAddress!, into: $0.baseAddress!, count: count)
                }
            }
            #expect(codes == values.prefix(count).map { SRGB.encode($0) })
        }
    }
}
