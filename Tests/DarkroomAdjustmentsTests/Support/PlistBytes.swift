/// Builds binary plists from object bodies written out by hand, following the format
/// directly (not through darkroom's writer): the header "bplist00", the objects in order, an
/// offset table of `offsetSize`-byte big-endian offsets, and the 32-byte trailer.
struct PlistBytes {
    var offsetSize: Int
    var referenceSize: Int

    /// An object reference in `referenceSize` bytes.
    func ref(_ index: Int) -> [UInt8] {
        bigEndian(UInt64(index), size: referenceSize)
    }

    func assemble(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        for offset in offsets {
            precondition(offset < 1 << (8 * offsetSize), "offset \(offset) does not fit \(offsetSize) bytes")
            out += bigEndian(UInt64(offset), size: offsetSize)
        }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out += bigEndian(UInt64(objects.count), size: 8)
        out += bigEndian(UInt64(top), size: 8)
        out += bigEndian(UInt64(table), size: 8)
        return out
    }
}

func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (size - 1 - $0))) }
}

/// An ASCII string object: 0x5n and the bytes (n < 15), or 0x5F, an integer count, the bytes.
func ascii(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    return (bytes.count < 15 ? [0x50 | UInt8(bytes.count)] : [0x5F, 0x10, UInt8(bytes.count)]) + bytes
}

/// An 8-byte real object.
func real(_ value: Double) -> [UInt8] {
    [0x23] + bigEndian(value.bitPattern, size: 8)
}

/// A one-byte UID object.
func uid(_ value: UInt8) -> [UInt8] {
    [0x80, value]
}
