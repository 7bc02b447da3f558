import DarkroomImaging

/// Code that understands one adjustment format, as a PhotoKit editing extension does.
public protocol Editor: Sendable {
    var formatIdentifier: String { get }
    /// The version this editor writes.
    var currentVersion: SemanticVersion { get }
    /// Largest `data` it accepts.
    var maxDataBytes: Int { get }
    /// Whether it reads data of `version` (older data is migrated by code, never guessed).
    func canRead(_ version: SemanticVersion) -> Bool
    /// The render steps `data` describes.
    func operations(from data: [UInt8], version: SemanticVersion) throws -> [ImageOperation]
    /// Data of `currentVersion`, in this format's own form (JSON for the pipeline, an
    /// NSKeyedArchiver archive for the sample extensions' formats), that renders
    /// `operations`. Throws `.unrepresentable` for operations the format cannot express.
    func encode(_ operations: [ImageOperation]) throws -> [UInt8]
    /// `data` of a readable `version`, rewritten as `currentVersion` data that renders the
    /// same: what a re-render stores in the new adjustment record.
    func upgrade(_ data: [UInt8], from version: SemanticVersion) throws -> [UInt8]
}

extension Editor {
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
public struct PipelineEditor: Editor {
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

    /// Decodes an adjustment into render steps, enforcing the editor's size limit.
    public func operations(identifier: String, version: String, data: [UInt8]) throws -> [ImageOperation] {
        let editor = try editor(for: identifier, version: version)
        guard data.count <= editor.maxDataBytes else {
            throw AdjustmentError(
                .dataTooLarge, "\(identifier) data is \(data.count) bytes; the limit is \(editor.maxDataBytes)")
        }
        return try editor.operations(from: data, version: SemanticVersion(version)!)
    }

    /// `operations` as data of the editor's current version, within its size limit.
    public func encode(_ operations: [ImageOperation], identifier: String) throws -> EncodedAdjustment {
        guard let editor = editors[identifier] else {
            let known = editors.keys.sorted().joined(separator: ", ")
            throw AdjustmentError(.unknownFormat, "no editor for format \"\(identifier)\"; this worker knows \(known)")
        }
        let data = try editor.encode(operations)
        try checkSize(data, of: editor, what: "encoded")
        return EncodedAdjustment(formatIdentifier: identifier, formatVersion: editor.currentVersion.text, data: data)
    }

    /// A stored adjustment rewritten for the editor's current version (for re-renders after
    /// an editor upgrade). Data already at the current version comes back equivalent.
    public func upgrade(identifier: String, version: String, data: [UInt8]) throws -> EncodedAdjustment {
        let editor = try editor(for: identifier, version: version)
        try checkSize(data, of: editor, what: "")
        let upgraded = try editor.upgrade(data, from: SemanticVersion(version)!)
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
