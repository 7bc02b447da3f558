extension BinaryPropertyList {
    /// `value` as a binary plist the way Core Foundation writes one: objects in pre-order
    /// (the top object first), equal scalars stored once, integers and references in the
    /// fewest bytes that hold them, reals in 4 bytes when that is exact and 8 otherwise,
    /// strings as ASCII when they can be and UTF-16BE otherwise.
    public static func encode(_ value: PropertyListValue) -> [UInt8] {
        var flattener = Flattener()
        _ = flattener.add(value)
        return serialise(flattener.objects)
    }

    /// One object of the file, its children replaced by object indices.
    enum FlatObject {
        case scalar(PropertyListValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// Identity of a scalar for sharing: exact bits and bytes, because Swift's `==` would
    /// merge 0.0 with −0.0 and canonically equivalent strings with different code points.
    enum ScalarKey: Hashable {
        case bool(Bool)
        case integer(Int64)
        case real(UInt64)
        case date(UInt64)
        case data([UInt8])
        case string([UInt8])
        case uid(UInt64)

        init?(_ value: PropertyListValue) {
            switch value {
            case .bool(let flag): self = .bool(flag)
            case .integer(let number): self = .integer(number)
            case .real(let number): self = .real(number.bitPattern)
            case .date(let seconds): self = .date(seconds.bitPattern)
            case .data(let bytes): self = .data(bytes)
            case .string(let text): self = .string(Array(text.utf8))
            case .uid(let reference): self = .uid(reference)
            case .array, .dictionary: return nil
            }
        }
    }

    struct Flattener {
        var objects: [FlatObject] = []
        var scalars: [ScalarKey: Int] = [:]

        mutating func add(_ value: PropertyListValue) -> Int {
            switch value {
            case .array(let elements):
                let index = objects.count
                objects.append(.array([]))
                let children = elements.map { add($0) }
                objects[index] = .array(children)
                return index
            case .dictionary(let dictionary):
                let index = objects.count
                objects.append(.dictionary(keys: [], values: []))
                let keys = dictionary.keys.map { add(.string($0)) }
                let values = dictionary.values.map { add($0) }
                objects[index] = .dictionary(keys: keys, values: values)
                return index
            default:
                let key = ScalarKey(value)!
                if let existing = scalars[key] { return existing }
                objects.append(.scalar(value))
                scalars[key] = objects.count - 1
                return objects.count - 1
            }
        }
    }

    static func serialise(_ objects: [FlatObject]) -> [UInt8] {
        let referenceSize = byteCount(for: UInt64(objects.count - 1))
        var out = header
        var offsets: [UInt64] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(UInt64(out.count))
            switch object {
            case .scalar(let value): appendScalar(value, to: &out)
            case .array(let children):
                appendMarker(0xA, count: children.count, to: &out)
                for child in children { appendUInt(UInt64(child), size: referenceSize, to: &out) }
            case .dictionary(let keys, let values):
                appendMarker(0xD, count: keys.count, to: &out)
                for child in keys + values { appendUInt(UInt64(child), size: referenceSize, to: &out) }
            }
        }
        let tableOffset = UInt64(out.count)
        let offsetSize = byteCount(for: offsets.last ?? 0)
        for offset in offsets { appendUInt(offset, size: offsetSize, to: &out) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        appendUInt(UInt64(objects.count), size: 8, to: &out)
        appendUInt(0, size: 8, to: &out)  // the top object is written first
        appendUInt(tableOffset, size: 8, to: &out)
        return out
    }

    static func appendScalar(_ value: PropertyListValue, to out: inout [UInt8]) {
        switch value {
        case .bool(let flag):
            out.append(flag ? 0x09 : 0x08)
        case .integer(let number):
            appendInteger(number, to: &out)
        case .real(let number):
            // The narrowest exact width: NSNumber(value: Float) values stay 4-byte reals, so a
            // reader that asks for a Float (`as? Float`) gets exactly what was written.
            if let single = Float(exactly: number) {
                out.append(0x22)
                appendUInt(UInt64(single.bitPattern), size: 4, to: &out)
            } else {
                out.append(0x23)
                appendUInt(number.bitPattern, size: 8, to: &out)
            }
        case .date(let seconds):
            out.append(0x33)
            appendUInt(seconds.bitPattern, size: 8, to: &out)
        case .data(let bytes):
            appendMarker(0x4, count: bytes.count, to: &out)
            out += bytes
        case .string(let text):
            if text.unicodeScalars.allSatisfy(\.isASCII) {
                appendMarker(0x5, count: text.utf8.count, to: &out)
                out += text.utf8
            } else {
                let units = Array(text.utf16)
                appendMarker(0x6, count: units.count, to: &out)
                for unit in units { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            }
        case .uid(let reference):
            let size = byteCount(for: reference)
            out.append(0x80 | UInt8(size - 1))
            appendUInt(reference, size: size, to: &out)
        case .array, .dictionary:
            preconditionFailure("containers are flattened before serialising")
        }
    }

    /// Non-negative integers in 1, 2, 4 or 8 bytes; negative ones always in 8 (the smaller
    /// sizes are unsigned).
    static func appendInteger(_ number: Int64, to out: inout [UInt8]) {
        let size = number < 0 ? 8 : byteCount(for: UInt64(number))
        let exponent: UInt8 =
            switch size {
            case 1: 0
            case 2: 1
            case 4: 2
            default: 3
            }
        out.append(0x10 | exponent)
        appendUInt(UInt64(bitPattern: number), size: size, to: &out)
    }

    /// A marker whose low nibble is the count, or 0xF and the count as an integer object.
    static func appendMarker(_ type: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(type << 4 | UInt8(count))
        } else {
            out.append(type << 4 | 0x0F)
            appendInteger(Int64(count), to: &out)
        }
    }

    static func appendUInt(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// 1, 2, 4 or 8: the fewest bytes that hold `value`.
    static func byteCount(for value: UInt64) -> Int {
        switch value {
        case ..<0x100: 1
        case ..<0x1_0000: 2
        case ..<0x1_0000_0000: 4
        default: 8
        }
    }
}
