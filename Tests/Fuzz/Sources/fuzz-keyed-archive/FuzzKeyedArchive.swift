import DarkroomAdjustments
import FuzzSupport

/// Properties: a refusal is an `AdjustmentError` (malformed data, or over `maxBytes`); what
/// decodes, archives into an archive that decodes to the identical value (reals by their bits).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyedArchive(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let value: ArchivedValue
        do {
            value = try KeyedArchive.decode(bytes)
        } catch {
            requireTyped(error, AdjustmentError.self)
            require(
                [.malformedData, .dataTooLarge].contains((error as? AdjustmentError)?.code), "refused with \(error)")
            return
        }
        do {
            let again = try KeyedArchive.decode(KeyedArchive.encode(value))
            require(identical(again, value), "archive → decode gave \(again), not \(value)")
        } catch {
            require(false, "its own archive does not decode: \(error)")
        }
    }
}

func identical(_ left: ArchivedValue, _ right: ArchivedValue) -> Bool {
    switch (left, right) {
    case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
    case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy(identical)
    case (.dictionary(let a), .dictionary(let b)): identical(a, b)
    case (.object(let nameA, let classesA, let a), .object(let nameB, let classesB, let b)):
        nameA == nameB && classesA == classesB && identical(a, b)
    default: left == right
    }
}

func identical(_ left: [String: ArchivedValue], _ right: [String: ArchivedValue]) -> Bool {
    left.count == right.count && left.allSatisfy { key, value in right[key].map { identical(value, $0) } ?? false }
}
