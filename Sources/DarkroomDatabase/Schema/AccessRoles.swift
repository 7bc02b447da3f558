internal import LibPQ

/// The four group roles `darkroom migrate` grants to (`SQL/definitions/roles.sql` says what
/// each may do): a name given here, else the one the last migration recorded, else
/// `darkroom_viewer`, `darkroom_operator`, `darkroom_worker`, `darkroom_serve` (the database decides).
public struct AccessRoles: Sendable, Hashable {
    public var viewer: String?
    public var operatorRole: String?
    public var worker: String?
    /// `darkroom serve`'s sessions, sign-in throttle and keys, and nothing else.
    public var serve: String?

    public init(
        viewer: String? = nil, operator operatorRole: String? = nil, worker: String? = nil, serve: String? = nil
    ) {
        self.viewer = viewer
        self.operatorRole = operatorRole
        self.worker = worker
        self.serve = serve
    }

    /// Whatever the database recorded last, or the defaults.
    public static let recordedOrDefault = AccessRoles()

    /// Grants on `connection` (`darkroom.grant_access`): creates missing roles, then makes
    /// their privileges exactly what roles.sql lists. Returns the roles granted to.
    @discardableResult
    func grant(on connection: DatabaseConnection) throws -> [AccessRole] {
        try connection.query(
            .grantAccess,
            [
                .optional(viewer, PostgresBind.text), .optional(operatorRole, PostgresBind.text),
                .optional(worker, PostgresBind.text), .optional(serve, PostgresBind.text),
            ]
        ).map(AccessRole.init(row:))
    }

    /// The roles the last migration granted to, viewer first (empty before one has run).
    public static func recorded(on connection: DatabaseConnection) throws -> [AccessRole] {
        let exists = try connection.query(.accessRolesExist)
        guard try exists[0]["exists"].decode(Bool.self) else { return [] }
        return try connection.query(
            .readAccessRoles
        ).map(AccessRole.init(row:))
    }
}

/// One of the group roles, as the database granted to it.
public struct AccessRole: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case viewer, `operator`, worker, serve
    }

    public var kind: Kind
    public var name: String
    /// Whether this migration created it.
    public var created: Bool

    init(row: PostgresRow) throws {
        let word = try row["kind"].decode(String.self)
        guard let kind = Kind(rawValue: word) else {
            throw DatabaseError(
                PostgresError(
                    code: .unexpectedResult, message: "darkroom.access_roles names an unknown kind of role: \(word)"))
        }
        self.kind = kind
        name = try row["role_name"].decode(String.self)
        created = try row["created"].decode(Bool.self)
    }
}
