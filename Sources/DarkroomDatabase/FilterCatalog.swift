import Foundation
internal import LibPQ

/// The filter versions in `darkroom.filters`: adding one (`darkroom.add_filter`, after its LUT
/// is in the storage) and listing them with how many assets show each (`darkroom.filter_versions`).
public struct FilterCatalog {
    let connection: DatabaseConnection

    public init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// Records `version` of `name`, whose LUT of `size` bytes is stored under `sha256`.
    /// Returns when it was added.
    public func add(name: String, version: String, sha256: String, size: Int) throws(FilterCatalogError) -> Date {
        do {
            return try connection.query(
                .addFilter,
                [.text(name), .text(version), .text(sha256.lowercased()), .int(Int64(size))]
            )[0]["added_at"].decode(Date.self)
        } catch let error as DatabaseError where error.code == .queryFailed {
            let code: FilterCatalogError.Code =
                switch error.sqlState {
                case "23505": .versionExists
                case "22023", "22004", "23514": .invalid
                default: .database
                }
            throw FilterCatalogError(
                code, "filter \(name) \(version): \(error.message)", hint: error.hint, cause: error)
        } catch {
            throw FilterCatalogError(.database, "filter \(name) \(version): \(error)", cause: error)
        }
    }

    /// A filter upgrade's dry run: each version of `name` below `belowVersion` that assets show
    /// now, oldest first, with how many. SQL owns the rule (`darkroom.filter_rerender_scope`).
    public func upgradeCounts(name: String, belowVersion: String) throws(FilterCatalogError) -> [FilterUpgradeCount] {
        do {
            return try connection.query(
                .countFilterRerender,
                [.text(name), .text(belowVersion)]
            ).map {
                FilterUpgradeCount(
                    version: try $0["version"].decode(String.self), assets: try $0["assets"].decode(Int64.self))
            }
        } catch {
            throw Self.upgradeRefusal(error, name: name, belowVersion: belowVersion)
        }
    }

    /// A filter upgrade's roll-out (`darkroom.enqueue_filter_rerender`, which owns the rule):
    /// queues a re-render bringing `name` to its newest version on each asset whose current
    /// chain uses it below `belowVersion`, skipping those already queued; a canary of `sample`
    /// when given; at most `maxJobs` in this call (one transaction) when given.
    public func enqueueUpgrade(
        name: String, belowVersion: String, sample: Int? = nil, maxJobs: Int? = nil, priority: Int = -20,
        batch: String? = nil
    ) throws(FilterCatalogError) -> FilterUpgradeQueued {
        do {
            let row = try connection.query(
                .enqueueFilterRerender,
                [
                    .text(name), .text(belowVersion), .optional(sample.map(Int64.init), PostgresBind.int),
                    .optional(maxJobs.map(Int64.init), PostgresBind.int), .int(Int64(priority)),
                    .optional(batch, PostgresBind.text),
                ])[0]
            return FilterUpgradeQueued(
                queued: try row["queued"].decode(Int.self), batch: try row["batch_name"].decode(String.self),
                version: try row["to_version"].decode(String.self))
        } catch {
            throw Self.upgradeRefusal(error, name: name, belowVersion: belowVersion)
        }
    }

    /// An upgrade SQL refused (a bad name or version: `invalid_parameter_value`), or a database
    /// that could not answer.
    private static func upgradeRefusal(_ error: any Error, name: String, belowVersion: String) -> FilterCatalogError {
        guard let error = error as? DatabaseError, error.code == .queryFailed else {
            return FilterCatalogError(.database, "filter \(name) below \(belowVersion): \(error)", cause: error)
        }
        let code: FilterCatalogError.Code = error.postgres.sqlState == .invalidParameterValue ? .invalid : .database
        return FilterCatalogError(
            code, "filter \(name) below \(belowVersion): \(error.message)", hint: error.hint, cause: error)
    }

    /// Every version, by name, newest first.
    public func versions() throws -> [FilterVersion] {
        try connection.query(
            .readFilterVersions
        ).map(FilterVersion.init(row:))
    }
}

/// One old version a filter upgrade would reach (`darkroom.filter_rerender_counts`).
public struct FilterUpgradeCount: Sendable, Equatable {
    public var version: String
    /// Assets whose current chain has a layer using `version`.
    public var assets: Int64

    public init(version: String, assets: Int64) {
        self.version = version
        self.assets = assets
    }
}

/// What one call of `darkroom.enqueue_filter_rerender` queued.
public struct FilterUpgradeQueued: Sendable, Equatable {
    public var queued: Int
    /// The jobs' batch: the one given, else filter-NAME-VERSION (with -sample for a canary).
    public var batch: String
    /// The version the re-renders bring: the filter's newest when it was called.
    public var version: String
}

/// One row of `darkroom.filter_versions`.
public struct FilterVersion: Sendable, Equatable {
    public var name: String
    public var version: String
    public var sha256: String
    public var size: Int64
    public var addedBy: String
    public var addedAt: Date
    /// Assets whose current chain has a layer using this version.
    public var assets: Int64
    /// The version an edit that names no version gets.
    public var isNewest: Bool

    init(row: PostgresRow) throws {
        name = try row["name"].decode(String.self)
        version = try row["version"].decode(String.self)
        sha256 = try row["sha256"].decode(String.self)
        size = try row["size"].decode(Int64.self)
        addedBy = try row["added_by"].decode(String.self)
        addedAt = try row["added_at"].decode(Date.self)
        assets = try row["assets"].decode(Int64.self)
        isNewest = try row["newest"].decode(Bool.self)
    }
}

/// A filter version the database refused to record.
public struct FilterCatalogError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The name already has this version (versions are never changed).
        case versionExists = "filter_version_exists"
        /// The name, version, hash or size broke a rule of `darkroom.filters`.
        case invalid = "filter_invalid"
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
