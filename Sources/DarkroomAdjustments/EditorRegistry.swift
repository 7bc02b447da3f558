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
}

/// The editors a worker can run, by format identifier.
public struct EditorRegistry: Sendable {
    public private(set) var editors: [String: any Editor]

    public init(_ editors: [any Editor]) {
        self.editors = Dictionary(editors.map { ($0.formatIdentifier, $0) }, uniquingKeysWith: { _, last in last })
    }

    public static let standard = EditorRegistry([PipelineEditor()])

    /// The editor for an adjustment, or an error saying why there is none.
    public func editor(for identifier: String, version text: String) throws -> any Editor {
        guard let version = SemanticVersion(text) else {
            throw AdjustmentError(.unsupportedVersion, "format version \"\(text)\" is not a semantic version like 1.0.0")
        }
        guard let editor = editors[identifier] else {
            let known = editors.keys.sorted().joined(separator: ", ")
            throw AdjustmentError(.unknownFormat, "no editor for format \"\(identifier)\"; this worker knows \(known)")
        }
        guard editor.canRead(version) else {
            throw AdjustmentError(.unsupportedVersion,
                "\(identifier) version \(text) is not readable by this worker (it writes \(editor.currentVersion))")
        }
        return editor
    }

    /// Decodes an adjustment into render steps, enforcing the editor's size limit.
    public func operations(identifier: String, version: String, data: [UInt8]) throws -> [ImageOperation] {
        let editor = try editor(for: identifier, version: version)
        guard data.count <= editor.maxDataBytes else {
            throw AdjustmentError(.dataTooLarge, "\(identifier) data is \(data.count) bytes; the limit is \(editor.maxDataBytes)")
        }
        return try editor.operations(from: data, version: SemanticVersion(version)!)
    }
}
