import EditVocabulary

/// Code that understands one adjustment format, as a PhotoKit editing extension does.
public protocol Editor: Sendable {
    var formatIdentifier: String { get }
    /// The version this editor writes.
    var currentVersion: SemanticVersion { get }
    /// Largest `data` it accepts.
    var maxDataBytes: Int { get }
    /// Whether it writes data of its format (`upgrade` then rewrites it as `currentVersion`);
    /// an editor that only reads one (Apple's) keeps the data and its version as they are.
    var writesItsFormat: Bool { get }
    /// Whether it reads data of `version` (older data is migrated by code, never guessed).
    func canRead(_ version: SemanticVersion) -> Bool
    /// `adjustment` (of a readable `version`, within the size limit) planned on `picture`: the
    /// one way a layer's data becomes a render. The plan's record is `adjustment`.
    func plan(_ adjustment: EncodedAdjustment, version: SemanticVersion, picture: Picture, options: EditOptions)
        throws -> EditPlan
    /// `data` of a readable `version`, rewritten as `currentVersion` data that renders the
    /// same: what a re-render stores in the new adjustment record.
    func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8]
}

extension Editor {
    public var writesItsFormat: Bool { true }
}

/// An editor whose data names its render steps whatever the picture (darkroom's pipeline, the
/// sample extensions' formats): it plans them as they are, and writes them back.
public protocol OperationEditor: Editor {
    /// The render steps `data` describes.
    func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation]
    /// Data of `currentVersion`, in this format's own form (JSON for the pipeline, an
    /// NSKeyedArchiver archive for the sample extensions' formats), that renders
    /// `operations`. Throws `.unrepresentable` for operations the format cannot express.
    func encode(_ operations: [ImageOperation]) throws -> [UInt8]
}

extension OperationEditor {
    /// The data's steps on the picture as it stands upright.
    public func plan(_ adjustment: EncodedAdjustment, version: SemanticVersion, picture: Picture, options: EditOptions)
        throws -> EditPlan
    {
        EditPlan(
            operations: try operations(from: adjustment.data, version: version), orientation: picture.orientation,
            record: adjustment)
    }

    /// Decode, then encode: right whenever `operations` carries everything the data says.
    public func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8] {
        try encode(operations(from: data, version: version))
    }
}

/// An adjustment ready to store: the editor's identifier, the version it writes, and data.
public struct EncodedAdjustment: Sendable, Equatable {
    public var formatIdentifier: String
    public var formatVersion: String
    public var data: [UInt8]

    public init(formatIdentifier: String, formatVersion: String, data: [UInt8]) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
    }
}

/// `io.darkroom.pipeline`: reads 1.x, writes 1.0.0.
public struct PipelineEditor: OperationEditor {
    public init() {}
    public var formatIdentifier: String { PipelineFormat.identifier }
    public var currentVersion: SemanticVersion { PipelineFormat.currentVersion }
    public var maxDataBytes: Int { PipelineFormat.maxDataBytes }

    public func canRead(_ version: SemanticVersion) -> Bool {
        version.major == 1 && version <= currentVersion
    }

    public func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation] {
        try PipelineFormat.decode(data)
    }

    public func encode(_ operations: [ImageOperation]) throws -> [UInt8] {
        try PipelineFormat.encode(operations)
    }

    /// Every 1.x so far has 1.0.0's layout, so readable data is already current: it is
    /// checked and kept byte for byte (the author's JSON, not a re-serialisation).
    public func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8] {
        _ = try PipelineFormat.decode(data)
        return data
    }
}

/// The editors a worker can run, by format identifier.
public struct EditorRegistry: Sendable {
    public private(set) var editors: [String: any Editor]

    public init(_ editors: [any Editor]) {
        self.editors = Dictionary(editors.map { ($0.formatIdentifier, $0) }, uniquingKeysWith: { _, last in last })
    }

    public static let standard = EditorRegistry([
        PipelineEditor(), FiltsterEditor(), ChromaKeyEditor(), ApplePhotoEditor(),
    ])

    /// The editor for an adjustment, or an error saying why there is none.
    public func editor(for identifier: String, version text: String) throws -> any Editor {
        guard let version = SemanticVersion(text) else {
            throw AdjustmentError(
                .unsupportedVersion, "format version \"\(text)\" is not a semantic version like 1.0.0")
        }
        guard let editor = editors[identifier] else {
            let known = editors.keys.sorted().joined(separator: ", ")
            throw AdjustmentError(.unknownFormat, "no editor for format \"\(identifier)\"; this worker knows \(known)")
        }
        guard editor.canRead(version) else {
            throw AdjustmentError(
                .unsupportedVersion,
                "\(identifier) version \(text) is not readable by this worker (it writes \(editor.currentVersion))")
        }
        return editor
    }

    /// `adjustment` planned on `picture` by its editor, within the editor's size limit. With
    /// `upgrading` (a re-render), the data is first migrated to the editor's current version,
    /// and the plan's record keeps the migrated data.
    public func plan(
        _ adjustment: EncodedAdjustment, picture: Picture, options: EditOptions = EditOptions(),
        upgrading: Bool = false
    ) throws -> EditPlan {
        let given = try editor(for: adjustment.formatIdentifier, version: adjustment.formatVersion)
        try checkSize(adjustment.data, of: given, what: "")
        let planned =
            upgrading
            ? try upgrade(
                identifier: adjustment.formatIdentifier, version: adjustment.formatVersion, data: adjustment.data)
            : adjustment
        let editor = try editor(for: planned.formatIdentifier, version: planned.formatVersion)
        return try editor.plan(
            planned, version: SemanticVersion(planned.formatVersion)!, picture: picture, options: options)
    }

    /// The render steps of an adjustment whose editor names them whatever the picture; an
    /// editor that plans on the picture (Apple's) answers only `plan`.
    public func operations(identifier: String, version: String, data: [UInt8]) throws -> [ImageOperation] {
        let editor = try editor(for: identifier, version: version)
        try checkSize(data, of: editor, what: "")
        guard let editor = editor as? any OperationEditor else {
            throw AdjustmentError(
                .unrepresentable,
                "\(identifier) plans its render on the picture it is applied to; it has no steps alone")
        }
        return try editor.operations(from: data, version: SemanticVersion(version)!)
    }

    /// `operations` as data of the editor's current version, within its size limit.
    public func encode(_ operations: [ImageOperation], identifier: String) throws -> EncodedAdjustment {
        guard let editor = editors[identifier] else {
            let known = editors.keys.sorted().joined(separator: ", ")
            throw AdjustmentError(.unknownFormat, "no editor for format \"\(identifier)\"; this worker knows \(known)")
        }
        guard let writer = editor as? any OperationEditor, editor.writesItsFormat else {
            throw AdjustmentError(.unrepresentable, "darkroom reads \(identifier) but never writes it")
        }
        let data = try writer.encode(operations)
        try checkSize(data, of: editor, what: "encoded")
        return EncodedAdjustment(formatIdentifier: identifier, formatVersion: editor.currentVersion.text, data: data)
    }

    /// A stored adjustment rewritten for the editor's current version (for re-renders after
    /// an editor upgrade). Data already at the current version comes back equivalent; data of
    /// a format darkroom only reads comes back checked, as it was.
    public func upgrade(identifier: String, version: String, data: [UInt8]) throws -> EncodedAdjustment {
        let editor = try editor(for: identifier, version: version)
        try checkSize(data, of: editor, what: "")
        let upgraded = try editor.upgrade(data, from: SemanticVersion(version)!)
        guard editor.writesItsFormat else {
            return EncodedAdjustment(formatIdentifier: identifier, formatVersion: version, data: upgraded)
        }
        try checkSize(upgraded, of: editor, what: "upgraded")
        return EncodedAdjustment(
            formatIdentifier: identifier, formatVersion: editor.currentVersion.text, data: upgraded)
    }

    private func checkSize(_ data: [UInt8], of editor: any Editor, what: String) throws {
        guard data.count <= editor.maxDataBytes else {
            let subject = what.isEmpty ? "\(editor.formatIdentifier) data" : "\(what) \(editor.formatIdentifier) data"
            throw AdjustmentError(
                .dataTooLarge, "\(subject) is \(data.count) bytes; the limit is \(editor.maxDataBytes)")
        }
    }
}
