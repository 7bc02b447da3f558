import Testing

@testable import DarkroomImaging

/// A filter that runs first reads the strip's 8-bit codes (`StripColor.Route`): the same
/// reference, identity tables and routes, through `StripColor` as a render runs it.
@Suite struct FilterCodesTests {
    static func placed(_ operation: ImageOperation, width: Int) -> PlacedOperation {
        PlacedOperation(operation: operation, canvas: PixelSize(width: width, height: 1), offsetX: 0, offsetY: 0)
    }

    /// `codes` as one row through `StripColor` with `operations`.
    static func run(_ operations: [ImageOperation], codes: [UInt8]) -> [UInt8] {
        let width = codes.count / 3
        let color = StripColor(steps: operations.map { placed($0, width: width) }, width: width, maxRows: 1)
        var out = codes
        out.withUnsafeMutableBytes { color.apply(to: $0, rows: 1, firstRow: 0) }
        return out
    }

    static func filter(_ table: ColorLookupTable, intensity: Float = 1) -> ImageOperation {
        .filter(FilterStep(name: "f", version: "1.0.0", intensity: intensity, table: table))
    }

    @Test func theRouteIsDecidedByTheFirstStep() {
        let table = ColorLookupTable.identity(kind: .cube, size: 3)
        func route(_ operations: [ImageOperation]) -> StripColor.Route {
            StripColor.route(operations.map { Self.placed($0, width: 4) })
        }
        let full = FilterStep(name: "f", version: "1.0.0", table: table)
        let half = FilterStep(name: "f", version: "1.0.0", intensity: 0.5, table: table)
        #expect(route([.filter(full)]) == .filterOnCodes(full))
        #expect(route([.filter(half)]) == .filterFirst(half))
        #expect(route([.filter(full), .sepia(intensity: 1)]) == .filterFirst(full))
        #expect(route([.sepia(intensity: 1), .filter(full)]) == .linear)
        #expect(route([.filter(FilterStep(name: "f", version: "1.0.0"))]) == .linear)
        #expect(route([]) == .linear)
    }

    @Test(arguments: [2, 3, 17, 33, 65])
    func identityCubesGiveBackEveryCode(size: Int) {
        let table = ColorLookupTable.identity(kind: .cube, size: size)
        let codes = FilterKernelTests.codes
        #expect(Self.run([Self.filter(table)], codes: codes) == codes)
        #expect(Self.run([Self.filter(table, intensity: 0.4)], codes: codes) == codes)
    }

    @Test(arguments: [2, 32, 4096])
    func identityCurvesGiveBackEveryCode(size: Int) {
        let table = ColorLookupTable.identity(kind: .curves, size: size)
        let codes = FilterKernelTests.codes
        #expect(Self.run([Self.filter(table)], codes: codes) == codes)
        #expect(Self.run([Self.filter(table, intensity: 0.4)], codes: codes) == codes)
    }

    /// Both routes against the double-precision reference: at most one code apart, almost
    /// always the same code; the odd pixel count leaves a tail.
    @Test(arguments: [(ColorLookupTable.Kind.cube, 17), (.cube, 33), (.cube, 2), (.curves, 64)])
    func matchesTheReference(kind: ColorLookupTable.Kind, size: Int) {
        let codes = Array(FilterKernelTests.codes.dropLast(3))
        for (intensity, domain): (Float, (Float, Float)) in [
            (1, (0, 1)), (0.6, (-0.1, 1.2)), (0, (0, 1)), (1, (0.1, 0.8)),
        ] {
            let table = FilterKernelTests.randomTable(kind: kind, size: size, seed: UInt64(size) + 7, domain: domain)
            let out = Self.run([Self.filter(table, intensity: intensity)], codes: codes)
            FilterKernelTests.expectNearTheReference(out, codes: codes, table: table, intensity: intensity) {
                FilterKernelTests.decoded(Double($0) / 255)
            }
        }
    }

    /// With steps after it, the filter hands them linear light: the chain is the filter's output
    /// with the next step applied, as the linear route would give it.
    @Test func stepsAfterTheFilterSeeItsOutput() {
        let table = FilterKernelTests.randomTable(kind: .cube, size: 17, seed: 3)
        let codes = FilterKernelTests.codes
        let filtered = Self.run([Self.filter(table)], codes: codes)
        let chained = Self.run([Self.filter(table), .exposure(ev: 0)], codes: codes)
        let differing = zip(filtered, chained).filter { $0 != $1 }.count
        #expect(zip(filtered, chained).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        #expect(differing * 200 < codes.count, "\(differing) of \(codes.count) samples differ by a code")
        let exposed = Self.run([Self.filter(table), .exposure(ev: 1)], codes: codes)
        let afterwards = Self.run([.exposure(ev: 1)], codes: filtered)
        #expect(exposed != filtered)
        #expect(zip(exposed, afterwards).allSatisfy { abs(Int($0) - Int($1)) <= 2 })
    }
}
