import DarkroomAdjustments
import DarkroomImaging
import FuzzSupport

/// The input is a `.cube` LUT file. Properties: typed refusals; a table it reads has the
/// points its size says, all finite, over a domain whose ends are in order; and the filter
/// kernel turns any pixel (NaN and out-of-range ones too) into finite values.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCube(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let table: ColorLookupTable
        do {
            table = try CubeFile.parse(bytes)
        } catch {
            requireTyped(error, CubeError.self)
            return
        }
        let points = table.kind == .cube ? table.size * table.size * table.size : table.size
        require(table.values.count == points * 3, "\(table) holds \(table.values.count) values")
        require(table.values.allSatisfy(\.isFinite), "\(table) holds a value that is not finite")
        require(
            table.domainMin.red < table.domainMax.red && table.domainMin.green < table.domainMax.green
                && table.domainMin.blue < table.domainMax.blue, "\(table) has a domain out of order")
        var pixels: [Float] = [0, 0, 0, 1, 1, 1, .nan, -1, 2, 0.25, 0.5, 0.75, .infinity, -.infinity, 1e-30]
        pixels.withUnsafeMutableBufferPointer { buffer in
            ColorKernels.apply(
                PlacedOperation(
                    operation: .filter(FilterStep(name: "fuzz", version: "1.0.0", intensity: 0.5, table: table)),
                    canvas: PixelSize(width: 5, height: 1), offsetX: 0, offsetY: 0),
                to: LinearStrip(pixels: buffer, width: 5, rows: 1, firstRow: 0))
        }
        require(
            pixels.enumerated().allSatisfy { $0.element.isFinite || [6, 12, 13].contains($0.offset) },
            "the kernel made \(pixels) from finite inputs")
    }
}
