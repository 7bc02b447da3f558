extension KeyedArchive {
    /// `root` archived the way `NSKeyedArchiver.archivedData(withRootObject:)` lays it out:
    /// `$objects[0]` = "$null", the root at UID 1, a container's contents after it (for a
    /// dictionary its keys, then its values), each class description once, after the first
    /// object of that class. Dictionary keys are written in sorted order so the same
    /// settings always give the same bytes. Readable by `NSKeyedUnarchiver` (and by
    /// `unarchivedObject(ofClasses:)` with NSDictionary, NSArray, NSString, NSNumber, NSData).
    public static func encode(_ root: ArchivedValue) -> [UInt8] {
        var writer = KeyedArchiveWriter()
        let rootUID = writer.add(root)
        let top: PropertyListDictionary = [
            "$version": .integer(version),
            "$archiver": .string(archiverName),
            "$top": .dictionary(["root": rootUID]),
            "$objects": .array(writer.objects),
        ]
        return BinaryPropertyList.encode(.dictionary(top))
    }
}

struct KeyedArchiveWriter {
    var objects: [PropertyListValue] = [.string("$null")]
    private var classUIDs: [String: PropertyListValue] = [:]
    /// Equal strings and numbers are archived once, as NSKeyedArchiver does for the same object.
    private var scalarUIDs: [BinaryPropertyList.ScalarKey: PropertyListValue] = [:]

    /// Adds `value` and returns the UID that refers to it.
    mutating func add(_ value: ArchivedValue) -> PropertyListValue {
        switch value {
        case .null: return .uid(0)
        case .bool(let flag): return scalar(.bool(flag))
        case .integer(let number): return scalar(.integer(number))
        case .real(let number): return scalar(.real(number))
        case .string(let text): return scalar(.string(text))
        case .data(let bytes): return scalar(.data(bytes))
        case .array(let elements):
            let slot = reserve()
            let uids = elements.map { add($0) }
            let classUID = classDescription("NSArray", ["NSArray", "NSObject"])
            objects[slot] = .dictionary(["NS.objects": .array(uids), "$class": classUID])
            return .uid(UInt64(slot))
        case .dictionary(let entries):
            let slot = reserve()
            let keys = entries.keys.sorted()
            let keyUIDs = keys.map { add(.string($0)) }
            let valueUIDs = keys.map { add(entries[$0]!) }
            let classUID = classDescription("NSDictionary", ["NSDictionary", "NSObject"])
            objects[slot] = .dictionary([
                "NS.keys": .array(keyUIDs), "NS.objects": .array(valueUIDs), "$class": classUID,
            ])
            return .uid(UInt64(slot))
        case .object(let className, let classes, let fields):
            let slot = reserve()
            var coded = PropertyListDictionary()
            for key in fields.keys.sorted() { coded[key] = add(fields[key]!) }
            coded["$class"] = classDescription(className, classes.isEmpty ? [className, "NSObject"] : classes)
            objects[slot] = .dictionary(coded)
            return .uid(UInt64(slot))
        }
    }

    private mutating func reserve() -> Int {
        objects.append(.string("$null"))  // replaced once the contents have their UIDs
        return objects.count - 1
    }

    private mutating func scalar(_ value: PropertyListValue) -> PropertyListValue {
        let key = BinaryPropertyList.ScalarKey(value)!
        if let uid = scalarUIDs[key] { return uid }
        objects.append(value)
        let uid = PropertyListValue.uid(UInt64(objects.count - 1))
        scalarUIDs[key] = uid
        return uid
    }

    private mutating func classDescription(_ name: String, _ classes: [String]) -> PropertyListValue {
        if let uid = classUIDs[name] { return uid }
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(classes.map { .string($0) })]))
        let uid = PropertyListValue.uid(UInt64(objects.count - 1))
        classUIDs[name] = uid
        return uid
    }
}
