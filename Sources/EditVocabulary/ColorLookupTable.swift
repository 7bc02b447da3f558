/// A display look-up table as a `.cube` file defines one: a 3D table of output colours over a
/// grid of input colours (red varying fastest), or one curve per channel (1D). Inputs and
/// outputs are sRGB-encoded components; `domainMin…domainMax` is the input range the grid
/// spans. Immutable once built: one table is shared by every render that uses it.
public final class ColorLookupTable: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// `size³` grid points, interpolated tetrahedrally.
        case cube = "3D"
        /// `size` points per channel, interpolated linearly.
        case curves = "1D"
    }

    public static let cubeSizes = 2...65
    public static let curveSizes = 2...65_536

    public let kind: Kind
    public let size: Int
    public let domainMin: RGBColor
    public let domainMax: RGBColor
    public let title: String?
    /// For a cube, point `(r, g, b)` at `4·(r + size·(g + size·b))`, its RGB padded with a zero
    /// so the kernel reads each corner with one aligned four-float load; for curves, RGB triples,
    /// point `i` of every channel at `3·i`, and one spare float at the end.
    public let points: [Float]

    /// `values` are the RGB triples in file order (`size³` or `size` of them). The caller
    /// checked them: a parser refuses what this would trap on.
    public init(kind: Kind, size: Int, values: [Float], domainMin: RGBColor, domainMax: RGBColor, title: String?) {
        precondition(kind == .cube ? Self.cubeSizes.contains(size) : Self.curveSizes.contains(size))
        let count = kind == .cube ? size * size * size : size
        precondition(values.count == count * 3, "a \(kind.rawValue) table of size \(size) has \(count * 3) values")
        precondition(
            domainMin.red < domainMax.red && domainMin.green < domainMax.green && domainMin.blue < domainMax.blue)
        self.kind = kind
        self.size = size
        self.domainMin = domainMin
        self.domainMax = domainMax
        self.title = title
        if kind == .cube {
            var padded = [Float](repeating: 0, count: count * 4)
            for point in 0..<count {
                for channel in 0..<3 { padded[point * 4 + channel] = values[point * 3 + channel] }
            }
            points = padded
        } else {
            points = values + [0]
        }
    }

    /// The table that gives back its input: each point holds its own grid position.
    public static func identity(kind: Kind, size: Int) -> ColorLookupTable {
        let step = 1 / Float(size - 1)
        var values: [Float] = []
        switch kind {
        case .cube:
            values.reserveCapacity(size * size * size * 3)
            for b in 0..<size {
                for g in 0..<size {
                    for r in 0..<size { values += [Float(r) * step, Float(g) * step, Float(b) * step] }
                }
            }
        case .curves:
            for i in 0..<size { values += [Float(i) * step, Float(i) * step, Float(i) * step] }
        }
        return ColorLookupTable(
            kind: kind, size: size, values: values, domainMin: .black, domainMax: .grey(1), title: nil)
    }

    /// The values in file order.
    public var values: [Float] {
        switch kind {
        case .cube: (0..<points.count).compactMap { $0 % 4 == 3 ? nil : points[$0] }
        case .curves: Array(points.dropLast())
        }
    }

    /// Bytes the table holds while a render uses it (what the memory budget counts).
    public var byteCount: Int { points.count * 4 }

    public var description: String {
        "\(kind.rawValue) LUT of size \(size)\(title.map { " \"\($0)\"" } ?? "")"
    }

    public static func == (left: ColorLookupTable, right: ColorLookupTable) -> Bool {
        left === right
            || (left.kind == right.kind && left.size == right.size && left.domainMin == right.domainMin
                && left.domainMax == right.domainMax && left.title == right.title && left.points == right.points)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(size)
        hasher.combine(points.count)
        // A few points stand for the rest: hashing a 65³ table whole would cost more than it helps.
        for index in stride(from: 0, to: points.count, by: max(1, points.count / 16)) { hasher.combine(points[index]) }
    }
}

/// A filter as an edit names it: a LUT stored under a name and version, mixed with its input
/// by `intensity`. `table` is the LUT the worker loaded for `name` and `version`; a version is
/// never changed once added, so equality and hashing leave the table out.
public struct FilterStep: Sendable, Hashable {
    public var name: String
    /// nil only in data not yet queued: `enqueue_edit` stores the newest version in its place.
    public var version: String?
    public var intensity: Float
    /// The SHA-256 of the version's LUT, lowercase hex, as `enqueue_edit` wrote it beside the
    /// version: where the worker finds the bytes, and what it checks them against.
    public var sha256: String?
    public var table: ColorLookupTable?

    public init(
        name: String, version: String?, intensity: Float = 1, sha256: String? = nil, table: ColorLookupTable? = nil
    ) {
        self.name = name
        self.version = version
        self.intensity = intensity
        self.sha256 = sha256
        self.table = table
    }

    public static func == (left: FilterStep, right: FilterStep) -> Bool {
        left.name == right.name && left.version == right.version && left.intensity == right.intensity
            && left.sha256 == right.sha256
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(version)
        hasher.combine(intensity)
        hasher.combine(sha256)
    }

    /// `name@version`, as messages and records spell a filter.
    public var label: String { version.map { "\(name)@\($0)" } ?? name }
}
