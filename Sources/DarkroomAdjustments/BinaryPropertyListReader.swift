/// Core Foundation's binary property list ("bplist00"), read and written in pure Swift with
/// no Foundation, so adjustment data from iOS can be decoded as data on any server.
///
/// Layout: the 8-byte header `bplist00`, the objects, an offset table (one big-endian
/// offset per object), and a 32-byte trailer: 6 unused bytes, the offset size, the
/// object-reference size, then three big-endian UInt64s — object count, top object index,
/// offset-table offset. Each object starts with a marker byte whose high nibble is its type
/// and low nibble its size (or 0xF, followed by an integer object holding the size).
public enum BinaryPropertyList {
    public static let header: [UInt8] = Array("bplist00".utf8)
    static let trailerSize = 32
    /// Containers nest at most this deep; a keyed archive needs three or four levels.
    public static let maxDepth = 64
    /// The largest plist read: the largest adjustment data of any editor that stores one.
    public static let maxBytes = 64 << 10
    /// The most values the decoded tree may hold, counting an object once per reference to it.
    /// Without shared containers a plist of `maxBytes` holds fewer (every reference takes a
    /// byte); with them, 40 bytes can describe 2⁶⁴ values, which whoever walks the tree (the
    /// writer, the keyed-archive reader) would then visit.
    public static let maxValues = 1 << 16

    /// The top object of `bytes`. Hostile input is an `AdjustmentError(.malformedData)` naming
    /// the byte offset or object; work and memory are bounded by the input's size (each
    /// object is decoded once, however often it is referenced), and so is the work of walking
    /// the result (`maxValues`).
    public static func decode(_ bytes: [UInt8]) throws -> PropertyListValue {
        guard bytes.count <= maxBytes else {
            throw AdjustmentError(.dataTooLarge, "binary plist is \(bytes.count) bytes; the limit is \(maxBytes)")
        }
        var reader = try BinaryPropertyListReader(bytes)
        return try reader.topObject()
    }
}

struct BinaryPropertyListReader {
    let bytes: [UInt8]
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topIndex: Int
    /// Objects must lie between the header and the offset table.
    let offsetTableStart: Int
    private var decoded: [PropertyListValue?]
    /// How many values each decoded object expands to (itself and everything under it).
    private var expandedSizes: [Int]
    private var inProgress: [Bool]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        // The header first (as far as there are bytes), so JSON or XML is called what it is.
        guard BinaryPropertyList.header.starts(with: bytes.prefix(8)), !bytes.isEmpty else {
            let start = bytes.prefix(8).map { ($0 >= 0x20 && $0 < 0x7F) ? String(UnicodeScalar($0)) : "." }.joined()
            throw Self.error("does not start with \"bplist00\" (found \"\(start)\"); it is not a binary property list")
        }
        let minimum = BinaryPropertyList.header.count + 1 + 1 + BinaryPropertyList.trailerSize
        guard bytes.count >= minimum else {
            throw Self.error(
                "is \(bytes.count) bytes, shorter than the smallest binary plist (\(minimum) bytes): truncated?")
        }
        let trailer = bytes.count - BinaryPropertyList.trailerSize
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.uint64(bytes, at: trailer + 8)
        let top = Self.uint64(bytes, at: trailer + 16)
        let tableOffset = Self.uint64(bytes, at: trailer + 24)
        guard (1...8).contains(offsetSize) else {
            throw Self.error(
                "trailer at byte \(trailer): offset size \(offsetSize) is not 1…8; the trailer is damaged or truncated")
        }
        guard (1...8).contains(referenceSize) else {
            throw Self.error(
                "trailer at byte \(trailer): object reference size \(referenceSize) is not 1…8; the trailer is damaged or truncated"
            )
        }
        guard tableOffset >= UInt64(BinaryPropertyList.header.count + 1), tableOffset < UInt64(trailer) else {
            throw Self.error(
                "trailer at byte \(trailer): offset table offset \(tableOffset) is outside the file (objects end before byte \(trailer))"
            )
        }
        offsetTableStart = Int(tableOffset)
        // The table must fit between its start and the trailer; dividing avoids overflow.
        let room = UInt64((trailer - offsetTableStart) / offsetSize)
        guard count >= 1, count <= room else {
            throw Self.error(
                "trailer at byte \(trailer): \(count) objects do not fit an offset table of \(trailer - offsetTableStart) bytes at byte \(offsetTableStart)"
            )
        }
        objectCount = Int(count)
        guard top < count else {
            throw Self.error(
                "trailer at byte \(trailer): top object \(top) is out of range (there are \(count) objects)")
        }
        topIndex = Int(top)
        decoded = Array(repeating: nil, count: objectCount)
        expandedSizes = Array(repeating: 1, count: objectCount)
        inProgress = Array(repeating: false, count: objectCount)
    }

    mutating func topObject() throws -> PropertyListValue {
        try object(topIndex, depth: 0)
    }

    // MARK: Objects

    private mutating func object(_ index: Int, depth: Int) throws -> PropertyListValue {
        if let value = decoded[index] { return value }
        guard !inProgress[index] else {
            throw Self.error("object \(index) contains itself (a reference cycle); property lists are trees")
        }
        guard depth <= BinaryPropertyList.maxDepth else {
            throw Self.error("object \(index) is nested more than \(BinaryPropertyList.maxDepth) containers deep")
        }
        inProgress[index] = true
        defer { inProgress[index] = false }
        let value = try parse(index, at: offset(of: index), depth: depth)
        decoded[index] = value
        return value
    }

    private func offset(of index: Int) throws -> Int {
        let entry = offsetTableStart + index * offsetSize
        let offset = Self.uint(bytes, at: entry, size: offsetSize)
        guard offset >= UInt64(BinaryPropertyList.header.count), offset < UInt64(offsetTableStart) else {
            throw Self.error(
                "offset table entry \(index) (byte \(entry)) points at byte \(offset), outside the object area 8..<\(offsetTableStart)"
            )
        }
        return Int(offset)
    }

    private mutating func parse(_ index: Int, at offset: Int, depth: Int) throws -> PropertyListValue {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default:
                throw Self.error(
                    "object \(index) at byte \(offset): marker 0x\(hex(marker)) (null or fill) is not supported")
            }
        case 0x1:
            guard low <= 4 else {
                throw Self.error("object \(index) at byte \(offset): integer marker 0x\(hex(marker)) has no valid size")
            }
            let start = try span(offset + 1, 1 << low, object: index, at: offset)
            return .integer(try integer(at: start, size: 1 << low, object: index, at: offset))
        case 0x2:
            switch low {
            case 2:
                let start = try span(offset + 1, 4, object: index, at: offset)
                return .real(Double(Float(bitPattern: UInt32(Self.uint(bytes, at: start, size: 4)))))
            case 3:
                let start = try span(offset + 1, 8, object: index, at: offset)
                return .real(Double(bitPattern: Self.uint64(bytes, at: start)))
            default:
                throw Self.error(
                    "object \(index) at byte \(offset): real marker 0x\(hex(marker)) is neither 4 nor 8 bytes")
            }
        case 0x3:
            guard marker == 0x33 else {
                throw Self.error("object \(index) at byte \(offset): date marker 0x\(hex(marker)) should be 0x33")
            }
            let start = try span(offset + 1, 8, object: index, at: offset)
            return .date(Double(bitPattern: Self.uint64(bytes, at: start)))
        case 0x4:
            let (count, start) = try counted(low, after: offset, object: index)
            let body = try span(start, count, object: index, at: offset)
            return .data(Array(bytes[body..<(body + count)]))
        case 0x5:
            let (count, start) = try counted(low, after: offset, object: index)
            let body = try span(start, count, object: index, at: offset)
            let text = bytes[body..<(body + count)]
            if let bad = text.firstIndex(where: { $0 >= 0x80 }) {
                throw Self.error(
                    "object \(index) at byte \(offset): ASCII string has byte 0x\(hex(bytes[bad])) at byte \(bad)")
            }
            return .string(String(decoding: text, as: UTF8.self))
        case 0x6:
            let (count, start) = try counted(low, after: offset, object: index)
            guard count <= Int.max / 2 else {
                throw Self.error("object \(index) at byte \(offset): UTF-16 string length \(count) is impossible")
            }
            let body = try span(start, count * 2, object: index, at: offset)
            return .string(try utf16(at: body, units: count, object: index, offset: offset))
        case 0x8:
            let size = low + 1
            guard size <= 8 else {
                throw Self.error("object \(index) at byte \(offset): UID of \(size) bytes is larger than 8")
            }
            let start = try span(offset + 1, size, object: index, at: offset)
            return .uid(Self.uint(bytes, at: start, size: size))
        case 0xA:
            let (count, start) = try counted(low, after: offset, object: index)
            let references = try references(count, at: start, object: index, offset: offset)
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(count)
            for reference in references { elements.append(try object(reference, depth: depth + 1)) }
            try expand(index, at: offset, into: references)
            return .array(elements)
        case 0xD:
            let (count, start) = try counted(low, after: offset, object: index)
            guard count <= Int.max / 2 else {
                throw Self.error("object \(index) at byte \(offset): dictionary of \(count) entries is impossible")
            }
            let references = try references(count * 2, at: start, object: index, offset: offset)
            var keys: [String] = []
            var values: [PropertyListValue] = []
            var seen = Set<String>()
            keys.reserveCapacity(count)
            values.reserveCapacity(count)
            for entry in 0..<count {
                guard case .string(let key) = try object(references[entry], depth: depth + 1) else {
                    throw Self.error(
                        "object \(index) at byte \(offset): dictionary key \(entry) (object \(references[entry])) is not a string"
                    )
                }
                guard seen.insert(key).inserted else {
                    throw Self.error(
                        "object \(index) at byte \(offset): dictionary has the key \(key.quotedForMessage) twice")
                }
                keys.append(key)
                values.append(try object(references[count + entry], depth: depth + 1))
            }
            try expand(index, at: offset, into: references)
            return .dictionary(PropertyListDictionary(uniqueKeys: keys, values: values))
        case 0xC:
            throw Self.error(
                "object \(index) at byte \(offset): sets are not supported (keyed archives never contain them)")
        default:
            throw Self.error("object \(index) at byte \(offset): unknown marker 0x\(hex(marker))")
        }
    }

    /// Records how many values container `index` expands to, refusing more than `maxValues`.
    private mutating func expand(_ index: Int, at offset: Int, into children: [Int]) throws {
        var total = 1
        for child in children {
            total += expandedSizes[child]
            guard total <= BinaryPropertyList.maxValues else {
                throw Self.error(
                    "object \(index) at byte \(offset) expands to more than \(BinaryPropertyList.maxValues) values (containers shared many times over)"
                )
            }
        }
        expandedSizes[index] = total
    }

    // MARK: Pieces

    /// `length` bytes from `start`, which must end before the offset table.
    private func span(_ start: Int, _ length: Int, object: Int, at offset: Int) throws -> Int {
        guard length >= 0, start <= offsetTableStart, length <= offsetTableStart - start else {
            throw Self.error(
                "object \(object) at byte \(offset) needs \(length) bytes from byte \(start), past the end of the object area (byte \(offsetTableStart))"
            )
        }
        return start
    }

    /// The element count of a data, string, array or dictionary marker and where its body starts.
    private func counted(_ low: Int, after offset: Int, object: Int) throws -> (count: Int, start: Int) {
        guard low == 0x0F else { return (low, offset + 1) }
        let markerAt = try span(offset + 1, 1, object: object, at: offset)
        let marker = bytes[markerAt]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else {
            throw Self.error(
                "object \(object) at byte \(offset): its length should follow as an integer, found marker 0x\(hex(marker)) at byte \(markerAt)"
            )
        }
        let size = 1 << Int(marker & 0x0F)
        let start = try span(markerAt + 1, size, object: object, at: offset)
        let count = try integer(at: start, size: size, object: object, at: offset)
        guard count >= 0 else { throw Self.error("object \(object) at byte \(offset): negative length \(count)") }
        // Every element takes at least one byte, so a count beyond the file is a lie; checking
        // here keeps a forged count from reserving memory.
        guard count <= Int64(bytes.count) else {
            throw Self.error(
                "object \(object) at byte \(offset): length \(count) is larger than the whole file (\(bytes.count) bytes)"
            )
        }
        return (Int(count), start + size)
    }

    private func references(_ count: Int, at start: Int, object: Int, offset: Int) throws -> [Int] {
        guard count <= Int.max / referenceSize else {
            throw Self.error("object \(object) at byte \(offset): \(count) references are impossible")
        }
        let body = try span(start, count * referenceSize, object: object, at: offset)
        var result: [Int] = []
        result.reserveCapacity(count)
        for slot in 0..<count {
            let reference = Self.uint(bytes, at: body + slot * referenceSize, size: referenceSize)
            guard reference < UInt64(objectCount) else {
                throw Self.error(
                    "object \(object) at byte \(offset): reference \(slot) is to object \(reference), but there are \(objectCount) objects"
                )
            }
            result.append(Int(reference))
        }
        return result
    }

    /// 1, 2 and 4-byte integers are unsigned, 8-byte ones signed; 16-byte ones (how CF writes
    /// UInt64 values above Int64.max) are accepted when they fit an Int64.
    private func integer(at start: Int, size: Int, object: Int, at offset: Int) throws -> Int64 {
        switch size {
        case 1, 2, 4: return Int64(Self.uint(bytes, at: start, size: size))
        case 8: return Int64(bitPattern: Self.uint64(bytes, at: start))
        default:
            let high = Self.uint64(bytes, at: start)
            let low = Self.uint64(bytes, at: start + 8)
            let value = Int64(bitPattern: low)
            guard (high == 0 && value >= 0) || (high == .max && value < 0) else {
                throw Self.error("object \(object) at byte \(offset): 128-bit integer does not fit 64 bits")
            }
            return value
        }
    }

    /// Strict UTF-16BE: an unpaired surrogate is an error, not a replacement character.
    private func utf16(at start: Int, units count: Int, object: Int, offset: Int) throws -> String {
        var units: [UInt16] = []
        units.reserveCapacity(count)
        for unit in 0..<count {
            units.append(UInt16(bytes[start + unit * 2]) << 8 | UInt16(bytes[start + unit * 2 + 1]))
        }
        var scalars = String.UnicodeScalarView()
        var iterator = units.makeIterator()
        var decoder = UTF16()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: throw Self.error("object \(object) at byte \(offset): UTF-16 string has an unpaired surrogate")
            }
        }
        return String(scalars)
    }

    static func uint(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in start..<(start + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }

    static func uint64(_ bytes: [UInt8], at start: Int) -> UInt64 {
        uint(bytes, at: start, size: 8)
    }

    static func error(_ problem: String) -> AdjustmentError {
        AdjustmentError(.malformedData, "binary plist \(problem)")
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
