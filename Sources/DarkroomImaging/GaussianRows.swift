/// Gaussian blur and unsharp mask as a row stage. Each upstream row is blurred along the
/// row once and kept in a ring of 2r+1 rows (the halo); each output row is the column-wise
/// weighted sum over the ring. Edges clamp to the canvas the operation applies to, so
/// there is no dark border.
final class GaussianRows: LinearRowSource {
    let region: PixelRect
    private let upstream: any LinearRowSource
    private let input: PixelRect
    private let kernel: GaussianKernel
    /// nil for a plain blur; the unsharp-mask amount otherwise.
    private let sharpenIntensity: Float?
    private let ringSize: Int
    private let blurred: UnsafeMutableBufferPointer<Float>
    private let originals: UnsafeMutableBufferPointer<Float>
    private let padded: UnsafeMutableBufferPointer<Float>
    private var nextInputY: Int
    private var nextOutputY: Int

    init(upstream: any LinearRowSource, operation: ImageOperation, canvas: PixelRect, output: PixelRect) {
        self.upstream = upstream
        input = upstream.region
        region = output
        switch operation {
        case .gaussianBlur(let sigma):
            kernel = GaussianKernel(sigma: sigma)
            sharpenIntensity = nil
        case .unsharpMask(let sigma, let intensity):
            kernel = GaussianKernel(sigma: sigma)
            sharpenIntensity = intensity
        default:
            preconditionFailure("\(operation.name) is not a neighbourhood operation")
        }
        ringSize = 2 * kernel.radius + 1
        let rowFloats = output.width * 3
        blurred = .allocate(capacity: ringSize * rowFloats)
        originals = .allocate(capacity: sharpenIntensity == nil ? 0 : ringSize * rowFloats)
        // The input row with `radius` pixels of edge replication on each side.
        padded = .allocate(capacity: (input.width + 2 * kernel.radius) * 3)
        nextInputY = input.y
        nextOutputY = output.y
    }

    deinit {
        blurred.deallocate()
        originals.deallocate()
        padded.deallocate()
    }

    func nextRow(into row: UnsafeMutablePointer<Float>) throws {
        let y = nextOutputY
        let radius = kernel.radius
        while nextInputY <= min(y + radius, input.maxY - 1) {
            try pullRow()
        }
        let width = region.width * 3
        kernel.weights.withUnsafeBufferPointer { weights in
            for index in 0..<width { row[index] = 0 }
            for offset in -radius...radius {
                // Rows beyond the input exist only at the canvas edge, where they clamp.
                let source = min(max(y + offset, input.y), input.maxY - 1)
                let ring = blurred.baseAddress! + slot(source) * width
                let weight = weights[offset + radius]
                for index in 0..<width { row[index] += weight * ring[index] }
            }
            if let amount = sharpenIntensity {
                let original = originals.baseAddress! + slot(y) * width
                for index in 0..<width {
                    row[index] = original[index] + amount * (original[index] - row[index])
                }
            }
        }
        nextOutputY += 1
    }

    private func slot(_ y: Int) -> Int { (y - input.y) % ringSize }

    /// Pulls one upstream row and blurs it along the row into the ring.
    private func pullRow() throws {
        let radius = kernel.radius
        let inputFloats = input.width * 3
        let body = padded.baseAddress! + radius * 3
        try upstream.nextRow(into: body)
        for edge in 0..<radius {
            for channel in 0..<3 {
                padded[edge * 3 + channel] = body[channel]
                padded[(radius + input.width + edge) * 3 + channel] = body[inputFloats - 3 + channel]
            }
        }
        let width = region.width
        let target = blurred.baseAddress! + slot(nextInputY) * width * 3
        // Output column x reads padded pixels x' − radius … x' + radius, x' = x + (output.x − input.x).
        let shift = region.x - input.x
        kernel.weights.withUnsafeBufferPointer { weights in
            for x in 0..<width {
                var r: Float = 0
                var g: Float = 0
                var b: Float = 0
                var base = (x + shift) * 3
                for tap in 0..<weights.count {
                    let weight = weights[tap]
                    r += weight * padded[base]
                    g += weight * padded[base + 1]
                    b += weight * padded[base + 2]
                    base += 3
                }
                target[x * 3] = r
                target[x * 3 + 1] = g
                target[x * 3 + 2] = b
            }
        }
        if sharpenIntensity != nil {
            let original = originals.baseAddress! + slot(nextInputY) * width * 3
            original.update(from: body + shift * 3, count: width * 3)
        }
        nextInputY += 1
    }
}
