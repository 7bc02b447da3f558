import DarkroomAdjustments
import FuzzSupport

/// Properties: a refusal is an `AdjustmentError` (malformed data, or over `maxBytes`); what
/// decodes, encodes to a binary plist that decodes to the identical value (reals and dates by
/// their bits).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlist(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let value: PropertyListValue
        do {
            value = try BinaryPropertyList.decode(bytes)
        } catch {
            requireTyped(error, AdjustmentError.self)
            require(
                [.malformedData, .dataTooLarge].contains((error as? AdjustmentError)?.code), "refused with \(error)")
            return
        }
        do {
            let again = try BinaryPropertyList.decode(BinaryPropertyList.encode(value))
            require(identical(again, value), "encode → decode gave \(again), not \(value)")
        } catch {
            require(false, "its own encoding does not decode: \(error)")
        }
    }
}

func identical(_ left: PropertyListValue, _ right: PropertyListValue) -> Bool {
    switch (left, right) {
    case (.real(let a), .real(let b)), (.date(let a), .date(let b)): a.bitPattern == b.bitPattern
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy(identical)
    case (.dictionary(let a), .dictionary(let b)): a.keys == b.keys && zip(a.values, b.values).allSatisfy(identical)
    default: left == right
    }
}
