import DarkroomAdjustments
import DarkroomImaging
import Foundation

/// A filter version `darkroom render` reads from a local `.cube` file instead of the storage
/// (`--filter-file NAME@VERSION=PATH`): the same rules as a worker's, without a database. An
/// operation names a version, or gets the newest release given for its name (`newest`, as
/// `enqueue_edit` chooses); a LUT hash in the data must be the file's.
public struct FilterFile: Sendable, Hashable {
    public var name: String
    public var version: SemanticVersion
    public var path: String

    public init(name: String, version: SemanticVersion, path: String) {
        self.name = name
        self.version = version
        self.path = path
    }

    /// `NAME@VERSION=PATH`; nil when it is not one.
    public init?(argument: String) {
        guard let at = argument.firstIndex(of: "@"), let equals = argument[at...].firstIndex(of: "=") else {
            return nil
        }
        let name = String(argument[..<at])
        guard !name.isEmpty, name.utf8.count <= PipelineFormat.maxFilterNameBytes,
            let version = SemanticVersion(String(argument[argument.index(after: at)..<equals])),
            argument.index(after: equals) < argument.endIndex
        else { return nil }
        self.init(name: name, version: version, path: String(argument[argument.index(after: equals)...]))
    }

    /// `operations` with every filter's version, LUT hash and table filled in from `files`.
    static func attach(_ files: [FilterFile], to operations: [ImageOperation]) throws(FilterFileError)
        -> [ImageOperation]
    {
        var loaded = operations
        for (index, operation) in operations.enumerated() {
            guard case .filter(let step) = operation else { continue }
            loaded[index] = .filter(try load(step, operation: index, from: files))
        }
        return loaded
    }

    /// `step` with its version, LUT hash and table filled in from `files`; `operation` is its
    /// index, for the messages.
    static func load(_ step: FilterStep, operation index: Int, from files: [FilterFile]) throws(FilterFileError)
        -> FilterStep
    {
        var step = step
        let named = files.filter { $0.name == step.name }
        let chosen =
            step.version.map { version in named.first { $0.version == SemanticVersion(version) } }
            ?? Self.newest(named)
        guard let file = chosen else {
            throw FilterFileError(
                .missing,
                "operation \(index) names filter \(step.label); give its LUT with --filter-file "
                    + "\(step.name)@\(step.version ?? "VERSION")=PATH.cube",
                object: "")
        }
        let bytes = try file.read()
        do {
            let lut = try FilterLUT.table(bytes, recorded: step.sha256)
            step.table = lut.table
            step.sha256 = lut.sha256
        } catch {
            switch error {
            case .hashMismatch(let found):
                throw FilterFileError(
                    .hashMismatch,
                    "filter \(step.name)@\(file.version.text) has SHA-256 \(found), not the \(step.sha256 ?? "") "
                        + "the adjustment data records; give the LUT that version was added with",
                    object: file.path)
            case .unreadable(let error):
                throw FilterFileError(
                    .unreadable, "\(error) [\(error.code.rawValue)]", object: file.path, cause: error)
            }
        }
        step.version = file.version.text
        return step
    }

    /// The newest release given, or the newest pre-release when only those are given: what
    /// `enqueue_edit` writes for an edit naming no version.
    static func newest(_ files: [FilterFile]) -> FilterFile? {
        let releases = files.filter { $0.version.prerelease.isEmpty }
        return (releases.isEmpty ? files : releases).max { $0.version < $1.version }
    }

    /// The whole file, refused past the largest LUT the reader accepts.
    func read() throws(FilterFileError) -> [UInt8] {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > CubeFile.maxBytes {
            throw FilterFileError(.unreadable, "is larger than \(CubeFile.maxBytes) bytes; not a LUT", object: path)
        }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw FilterFileError(
                .missing, "cannot read this file; check the path given to --filter-file", object: path)
        }
        guard contents.count <= CubeFile.maxBytes else {
            throw FilterFileError(.unreadable, "is larger than \(CubeFile.maxBytes) bytes; not a LUT", object: path)
        }
        return [UInt8](contents)
    }
}

/// A `--filter-file` darkroom cannot use. The codes are the worker's for the same failures.
public struct FilterFileError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case missing = "filter_missing"
        case hashMismatch = "filter_hash_mismatch"
        case unreadable = "filter_unreadable"
    }

    public var code: Code
    public var message: String
    /// The LUT file concerned ("" when no file was given).
    public var object: String
    public var cause: CubeError?

    public init(_ code: Code, _ message: String, object: String, cause: CubeError? = nil) {
        self.code = code
        self.message = message
        self.object = object
        self.cause = cause
    }

    public var description: String { object.isEmpty ? message : "\(object): \(message)" }
}
