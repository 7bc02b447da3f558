/// `NSKeyedArchiver`'s archive format on top of a binary plist, read and written as data.
///
/// The plist's top object is a dictionary: `$archiver` = "NSKeyedArchiver", `$version` =
/// 100000, `$top` = {"root": UID}, and `$objects`, an array whose entry 0 is the string
/// "$null". A UID is an index into `$objects`. Strings, numbers and data are stored inline
/// as plist values; every other object is a dictionary of its coded fields plus `$class`, a
/// UID of {"$classname": name, "$classes": [name, superclass, …, "NSObject"]}. An
/// NSDictionary codes `NS.keys` and `NS.objects`, two arrays of UIDs of the same length; an
/// NSArray codes `NS.objects`.
public enum KeyedArchive {
    public static let archiverName = "NSKeyedArchiver"
    public static let version: Int64 = 100_000
    /// Objects nest at most this deep (the formats darkroom reads need two levels).
    public static let maxDepth = 32
    /// The most values the decoded tree may hold, counting a shared entry once per reference
    /// (the same bound as the plist underneath, for the same reason: UIDs share entries).
    public static let maxValues = BinaryPropertyList.maxValues

    static let dictionaryClasses: Set<String> = ["NSDictionary", "NSMutableDictionary"]
    static let arrayClasses: Set<String> = ["NSArray", "NSMutableArray"]
    static let stringClasses: Set<String> = ["NSString", "NSMutableString"]
    static let dataClasses: Set<String> = ["NSData", "NSMutableData"]

    /// The archive's root object. Hostile archives (cycles, out-of-range UIDs, wrong
    /// types, deep nesting, or a damaged plist underneath) throw `.malformedData`.
    public static func decode(_ bytes: [UInt8]) throws -> ArchivedValue {
        guard case .dictionary(let top) = try BinaryPropertyList.decode(bytes) else {
            throw error("its top object is not a dictionary with $archiver, $version, $top and $objects")
        }
        guard case .string(let archiver)? = top["$archiver"], archiver == archiverName else {
            throw error("$archiver is \(describe(top["$archiver"])), expected \"\(archiverName)\"")
        }
        guard case .integer(let number)? = top["$version"], number == version else {
            throw error("$version is \(describe(top["$version"])), expected \(version)")
        }
        guard case .array(let objects)? = top["$objects"] else {
            throw error("$objects is \(describe(top["$objects"])), expected an array")
        }
        guard case .string("$null")? = objects.first else {
            throw error("$objects[0] must be the string \"$null\"")
        }
        guard case .dictionary(let roots)? = top["$top"], case .uid(let root)? = roots["root"] else {
            throw error("$top must be a dictionary whose \"root\" is a UID")
        }
        var reader = KeyedArchiveReader(objects: objects)
        return try reader.value(of: root, depth: 0, path: "root")
    }

    static func error(_ problem: String) -> AdjustmentError {
        AdjustmentError(.malformedData, "keyed archive: \(problem)")
    }

    static func describe(_ value: PropertyListValue?) -> String {
        switch value {
        case nil: "missing"
        case .string(let text)?: text.quotedForMessage
        case .integer(let number)?: "\(number)"
        case let value?: value.kind
        }
    }
}

/// Resolves UIDs into `ArchivedValue`s, each `$objects` entry once (a shared entry is
/// decoded once and reused, so sharing cannot multiply work).
struct KeyedArchiveReader {
    let objects: [PropertyListValue]
    private var decoded: [Int: ArchivedValue] = [:]
    /// How many values each decoded entry expands to, and how many the tree holds so far.
    private var expandedSizes: [Int: Int] = [:]
    private var produced = 0
    private var inProgress: Set<Int> = []

    init(objects: [PropertyListValue]) {
        self.objects = objects
    }

    /// `path` says where the reference was found, e.g. `root → "vignetteRadius"`.
    mutating func value(of uid: UInt64, depth: Int, path: String) throws -> ArchivedValue {
        guard uid < UInt64(objects.count) else {
            throw KeyedArchive.error("\(path) refers to UID \(uid), but $objects has \(objects.count) entries")
        }
        let index = Int(uid)
        if index == 0 {
            try count(1, at: path)
            return .null
        }
        if let value = decoded[index], let size = expandedSizes[index] {
            try count(size, at: path)
            return value
        }
        guard !inProgress.contains(index) else {
            throw KeyedArchive.error("\(path) refers to $objects[\(index)], which contains itself (a reference cycle)")
        }
        guard depth <= KeyedArchive.maxDepth else {
            throw KeyedArchive.error("\(path) is nested more than \(KeyedArchive.maxDepth) objects deep")
        }
        inProgress.insert(index)
        defer { inProgress.remove(index) }
        let start = produced
        let value = try entry(index, depth: depth, path: path)
        try count(1, at: path)
        decoded[index] = value
        expandedSizes[index] = produced - start
        return value
    }

    /// Adds `values` to the tree, refusing a tree of more than `maxValues`.
    private mutating func count(_ values: Int, at path: String) throws {
        produced += values
        guard produced <= KeyedArchive.maxValues else {
            throw KeyedArchive.error(
                "at \(path) the archive expands to more than \(KeyedArchive.maxValues) values (entries shared many times over)"
            )
        }
    }

    private mutating func entry(_ index: Int, depth: Int, path: String) throws -> ArchivedValue {
        switch objects[index] {
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .real(number)
        case .string(let text): return .string(text)
        case .data(let bytes): return .data(bytes)
        case .dictionary(let fields): return try object(fields, index: index, depth: depth, path: path)
        case let other:
            throw KeyedArchive.error(
                "$objects[\(index)] (\(path)) is \(other.kind); archived objects are strings, numbers, data or dictionaries with $class"
            )
        }
    }

    private mutating func object(_ fields: PropertyListDictionary, index: Int, depth: Int, path: String) throws
        -> ArchivedValue
    {
        let (name, classes) = try classInfo(of: fields, index: index, path: path)
        let here = "$objects[\(index)] (\(name.prefix(40)), \(path))"
        if KeyedArchive.dictionaryClasses.contains(name) {
            try expectOnly(["$class", "NS.keys", "NS.objects"], in: fields, at: here)
            let keys = try uids(fields["NS.keys"], field: "NS.keys", at: here)
            let values = try uids(fields["NS.objects"], field: "NS.objects", at: here)
            guard keys.count == values.count else {
                throw KeyedArchive.error("\(here) has \(keys.count) NS.keys but \(values.count) NS.objects")
            }
            var result: [String: ArchivedValue] = [:]
            result.reserveCapacity(keys.count)
            for (position, (keyUID, valueUID)) in zip(keys, values).enumerated() {
                guard case .string(let key) = try value(of: keyUID, depth: depth + 1, path: "\(path) → key \(position)")
                else {
                    throw KeyedArchive.error("\(here): key \(position) is not a string")
                }
                guard result[key] == nil else {
                    throw KeyedArchive.error("\(here) has the key \(key.quotedForMessage) twice")
                }
                result[key] = try value(of: valueUID, depth: depth + 1, path: "\(path) → \(key.quotedForMessage)")
            }
            return .dictionary(result)
        }
        if KeyedArchive.arrayClasses.contains(name) {
            try expectOnly(["$class", "NS.objects"], in: fields, at: here)
            let elements = try uids(fields["NS.objects"], field: "NS.objects", at: here)
            var result: [ArchivedValue] = []
            result.reserveCapacity(elements.count)
            for (position, uid) in elements.enumerated() {
                result.append(try value(of: uid, depth: depth + 1, path: "\(path)[\(position)]"))
            }
            return .array(result)
        }
        if KeyedArchive.stringClasses.contains(name) {
            try expectOnly(["$class", "NS.string"], in: fields, at: here)
            guard case .string(let text)? = fields["NS.string"] else {
                throw KeyedArchive.error(
                    "\(here): NS.string is \(KeyedArchive.describe(fields["NS.string"])), expected a string")
            }
            return .string(text)
        }
        if KeyedArchive.dataClasses.contains(name) {
            try expectOnly(["$class", "NS.data"], in: fields, at: here)
            guard case .data(let bytes)? = fields["NS.data"] else {
                throw KeyedArchive.error(
                    "\(here): NS.data is \(KeyedArchive.describe(fields["NS.data"])), expected data")
            }
            return .data(bytes)
        }
        // Any other class stays data: its fields, with UIDs resolved, for the format to judge.
        var result: [String: ArchivedValue] = [:]
        for (key, field) in fields.entries where key != "$class" {
            result[key] = try inline(field, depth: depth + 1, path: "\(path).\(key.quotedForMessage)")
        }
        return .object(className: name, classes: classes, fields: result)
    }

    /// A field coded inline in an object (numbers, strings, arrays of UIDs, …).
    private mutating func inline(_ field: PropertyListValue, depth: Int, path: String) throws -> ArchivedValue {
        guard depth <= KeyedArchive.maxDepth else {
            throw KeyedArchive.error("\(path) is nested more than \(KeyedArchive.maxDepth) levels deep")
        }
        let result: ArchivedValue
        switch field {
        case .uid(let uid): return try value(of: uid, depth: depth, path: path)
        case .bool(let flag): result = .bool(flag)
        case .integer(let number): result = .integer(number)
        case .real(let number): result = .real(number)
        case .string(let text): result = .string(text)
        case .data(let bytes): result = .data(bytes)
        case .date(let seconds): result = .real(seconds)
        case .array(let elements):
            var values: [ArchivedValue] = []
            for (position, element) in elements.enumerated() {
                values.append(try inline(element, depth: depth + 1, path: "\(path)[\(position)]"))
            }
            result = .array(values)
        case .dictionary(let entries):
            var values: [String: ArchivedValue] = [:]
            for (key, element) in entries.entries {
                values[key] = try inline(element, depth: depth + 1, path: "\(path).\(key.quotedForMessage)")
            }
            result = .dictionary(values)
        }
        try count(1, at: path)
        return result
    }

    /// `$class` → {"$classname": String, "$classes": [String]}. Class entries are read as
    /// descriptions only; they are never looked up, loaded or instantiated.
    private func classInfo(of fields: PropertyListDictionary, index: Int, path: String) throws -> (String, [String]) {
        guard case .uid(let uid)? = fields["$class"] else {
            throw KeyedArchive.error("$objects[\(index)] (\(path)) is a dictionary without a $class UID")
        }
        guard uid > 0, uid < UInt64(objects.count), case .dictionary(let info) = objects[Int(uid)],
            case .string(let name)? = info["$classname"], !name.isEmpty
        else {
            throw KeyedArchive.error(
                "$objects[\(index)] (\(path)): its $class (UID \(uid)) is not a {$classname, $classes} entry")
        }
        var classes: [String] = []
        if let list = info["$classes"] {
            guard case .array(let entries) = list else {
                throw KeyedArchive.error(
                    "class \(name.prefix(40)) (UID \(uid)): $classes is \(list.kind), expected an array of strings")
            }
            for entry in entries {
                guard case .string(let superclass) = entry else {
                    throw KeyedArchive.error(
                        "class \(name.prefix(40)) (UID \(uid)): $classes holds \(entry.kind), expected strings")
                }
                classes.append(superclass)
            }
        }
        // A class is always the first of its own classes: an archive that lists none reads as
        // listing just it, so writing the value back and reading it again gives the same value.
        return (name, classes.isEmpty ? [name] : classes)
    }

    private func uids(_ field: PropertyListValue?, field name: String, at here: String) throws -> [UInt64] {
        guard case .array(let entries)? = field else {
            throw KeyedArchive.error("\(here): \(name) is \(KeyedArchive.describe(field)), expected an array of UIDs")
        }
        return try entries.enumerated().map { position, entry in
            guard case .uid(let uid) = entry else {
                throw KeyedArchive.error("\(here): \(name)[\(position)] is \(entry.kind), expected a UID")
            }
            return uid
        }
    }

    private func expectOnly(_ allowed: Set<String>, in fields: PropertyListDictionary, at here: String) throws {
        if let extra = fields.keys.first(where: { !allowed.contains($0) }) {
            throw KeyedArchive.error("\(here) has an unexpected field \(extra.quotedForMessage)")
        }
    }
}
