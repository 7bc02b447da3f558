import Foundation
internal import LibPQ

/// The rendition definitions in `darkroom.renditions`: adding a version
/// (`darkroom.add_rendition`, which owns the defaults and bounds), removing a name, listing
/// every version, and the current set a worker writes (`darkroom.current_renditions`).
public struct RenditionCatalog {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// What `darkroom rendition add` asks for; nil leaves the choice to SQL's defaults.
    public struct Request: Sendable, Equatable {
        public var name: String
        public var format: String
        public var longestSide: Int
        public var quality: Int?
        public var metadata: String?
        public var color: String?
        public var hdr: String?

        public init(
            name: String, format: String, longestSide: Int, quality: Int? = nil, metadata: String? = nil,
            color: String? = nil, hdr: String? = nil
        ) {
            self.name = name
            self.format = format
            self.longestSide = longestSide
            self.quality = quality
            self.metadata = metadata
            self.color = color
            self.hdr = hdr
        }
    }

    /// Adds the next version of `request.name`; returns it as recorded, defaults filled in.
    public func add(_ request: Request) throws(RenditionCatalogError) -> RenditionDefinition {
        do {
            return try RenditionDefinition(
                row: connection.query(
                    .addRendition,
                    [
                        .text(request.name), .text(request.format), .int(Int64(request.longestSide)),
                        .optional(request.quality.map(Int64.init), PostgresBind.int),
                        .optional(request.metadata, PostgresBind.text), .optional(request.color, PostgresBind.text),
                        .optional(request.hdr, PostgresBind.text),
                    ])[0])
        } catch {
            throw Self.refusal(error, doing: "rendition \(request.name)")
        }
    }

    /// Stops writing `name`; returns the version that was current.
    public func remove(name: String) throws(RenditionCatalogError) -> Int {
        do {
            return try connection.query(
                .removeRendition, [.text(name)]
            )[0]["version"].decode(Int.self)
        } catch {
            throw Self.refusal(error, doing: "rendition \(name)")
        }
    }

    /// Every version of every rendition, by name, newest first.
    public func versions() throws(RenditionCatalogError) -> [RenditionDefinition] {
        do {
            return try connection.query(.readRenditionVersions).map(RenditionDefinition.init(row:))
        } catch {
            throw Self.refusal(error, doing: "listing renditions")
        }
    }

    /// The renditions a render writes now, by name.
    public func current() throws(RenditionCatalogError) -> [RenditionDefinition] {
        do {
            return try connection.query(
                .readCurrentRenditions
            )
            .map(RenditionDefinition.init(row:))
        } catch {
            throw Self.refusal(error, doing: "reading the current renditions")
        }
    }

    /// A definition SQL refused (`invalid_parameter_value`), or a database that could not answer.
    private static func refusal(_ error: any Error, doing subject: String) -> RenditionCatalogError {
        guard let error = error as? DatabaseError, error.code == .queryFailed else {
            return RenditionCatalogError(.database, "\(subject): \(error)", cause: error)
        }
        let code: RenditionCatalogError.Code = error.postgres.sqlState == .invalidParameterValue ? .invalid : .database
        return RenditionCatalogError(code, "\(subject): \(error.message)", hint: error.hint, cause: error)
    }
}

/// One version of a rendition (`darkroom.renditions`), as SQL recorded it.
public struct RenditionDefinition: Sendable, Equatable {
    public var name: String
    public var version: Int
    /// "jpeg", "webp" or "avif".
    public var format: String
    public var longestSide: Int
    /// nil: the full render's quality (the built-in display copy).
    public var quality: Int?
    /// "all", "no-location" or "none".
    public var metadata: String
    /// "source" or "srgb".
    public var color: String
    /// "keep" or "drop".
    public var hdr: String
    public var addedBy: String
    public var addedAt: Date
    public var removedAt: Date?
    /// What a render writes now: its name's newest version, not removed.
    public var isCurrent: Bool

    init(row: PostgresRow) throws {
        name = try row["name"].decode(String.self)
        version = try row["version"].decode(Int.self)
        format = try row["format"].decode(String.self)
        longestSide = try row["longest_side"].decode(Int.self)
        quality = try row["quality"].decode(Int?.self)
        metadata = try row["metadata"].decode(String.self)
        color = try row["color"].decode(String.self)
        hdr = try row["hdr"].decode(String.self)
        addedBy = try row["added_by"].decode(String.self)
        addedAt = try row["added_at"].decode(Date.self)
        removedAt = try row["removed_at"].decode(Date?.self)
        isCurrent = try row["current"].decode(Bool.self)
    }
}

public struct RenditionCatalogError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A name, format, size or choice broke a rule of `darkroom.add_rendition`, or the name is unknown.
        case invalid = "rendition_invalid"
        case database = "database_unavailable"
    }

    public var code: Code
    public var message: String
    public var hint: String?
    public var cause: (any Error)?

    public init(_ code: Code, _ message: String, hint: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.cause = cause
    }

    public var description: String { hint.map { "\(message) (\($0))" } ?? message }
}
