@testable import DarkroomImaging
import Testing

/// Each operation against values computed by hand from the formulas in the issue.
@Suite struct ColorKernelTests {
    /// Runs one placed operation over `pixels` (one row unless `width` says otherwise).
    func run(_ step: PlacedOperation, _ pixels: [Float], width: Int? = nil, firstRow: Int = 0) -> [Float] {
        var copy = pixels
        let columns = width ?? pixels.count / 3
        copy.withUnsafeMutableBufferPointer { buffer in
            ColorKernels.apply(step, to: LinearStrip(pixels: buffer, width: columns, rows: pixels.count / 3 / columns, firstRow: firstRow))
        }
        return copy
    }

    func place(_ operation: ImageOperation, canvas: PixelSize = PixelSize(width: 1, height: 1), x: Int = 0, y: Int = 0) -> PlacedOperation {
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
        let whole = run(place(.vignette(intensity: 1, radius: 1), canvas: canvas), [Float](repeating: 0.5, count: 24), width: 4)
        let secondRow = run(place(.vignette(intensity: 1, radius: 1), canvas: canvas), [Float](repeating: 0.5, count: 12), width: 4, firstRow: 1)
        #expect(Array(whole[12...]) == secondRow)
    }

    @Test func srgbRoundTripKeepsEveryCode() {
        SRGB.encodeTable.withUnsafeBufferPointer { table in
            for code in 0...255 {
                #expect(SRGB.encode(SRGB.decodeTable[code], table: table) == UInt8(code))
            }
            #expect(SRGB.encode(.nan, table: table) == 0)
            #expect(SRGB.encode(-1, table: table) == 0)
            #expect(SRGB.encode(7, table: table) == 255)
        }
        #expect(abs(SRGB.decodeTable[128] - 0.2158605) < 1e-6)
    }
}
