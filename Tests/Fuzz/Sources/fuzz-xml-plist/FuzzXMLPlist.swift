import DarkroomAdjustments
import FuzzSupport

/// Properties: a refusal is an `AdjustmentError` (malformed data, or over `maxBytes`); what
/// decodes holds at most `maxValues` values nested at most `maxDepth` deep, and encodes to a
/// binary plist that decodes to the same value (as the binary reader reads it).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLPlist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let value: PropertyListValue
        do {
            value = try XMLPropertyList.decode(bytes)
        } catch {
            requireTyped(error, AdjustmentError.self)
            require(
                [.malformedData, .dataTooLarge].contains((error as? AdjustmentError)?.code), "refused with \(error)")
            return
        }
        let (count, depth) = measure(value)
        require(count <= XMLPropertyList.maxValues, "\(count) values")
        require(depth <= XMLPropertyList.maxDepth + 1, "nested \(depth) deep")
        if let again = try? BinaryPropertyList.decode(BinaryPropertyList.encode(value)) {
            require(same(again, value), "XML → binary → value changed \(value) into \(again)")
        }
    }
}

func measure(_ value: PropertyListValue) -> (count: Int, depth: Int) {
    switch value {
    case .array(let elements):
        let parts = elements.map(measure)
        return (1 + parts.map(\.count).reduce(0, +), 1 + (parts.map(\.depth).max() ?? 0))
    case .dictionary(let dictionary):
        let parts = dictionary.values.map(measure)
        return (1 + parts.map(\.count).reduce(0, +), 1 + (parts.map(\.depth).max() ?? 0))
    default:
        return (1, 0)
    }
}

func same(_ left: PropertyListValue, _ right: PropertyListValue) -> Bool {
    switch (left, right) {
    case (.real(let a), .real(let b)), (.date(let a), .date(let b)):
        a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy(same)
    case (.dictionary(let a), .dictionary(let b)): a.keys == b.keys && zip(a.values, b.values).allSatisfy(same)
    default: left == right
    }
}
