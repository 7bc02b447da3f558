internal import CPostgres

/// The one owner of a libpq connection (`PGconn`). Calls block the calling thread.
///
/// Not `Sendable`: libpq connections must not be used from two threads at once, so give each
/// thread its own connection.
public final class PostgresConnection {
    /// The `PGconn`; it never leaves this class and its extensions.
    let handle: OpaquePointer
    /// How many `withTransaction` calls are open, so nested ones use savepoints.
    var transactionDepth = 0

    /// Called for each NOTICE or WARNING the server sends (for example by `RAISE NOTICE`).
    /// Without a handler they are dropped: libpq's default would print them to stderr.
    public var onNotice: ((PostgresNotice) -> Void)?

    /// Opens a connection from a URI (`postgresql://user@host:port/db`) or `key=value` string.
    ///
    /// `application_name` defaults to "darkroom". No session state is set unless the server's
    /// DateStyle is not ISO (see `configureSession`), so connections may go through PgBouncer.
    public init(_ conninfo: String) throws {
        // Earlier entries can be overridden by the connection string, later ones cannot:
        // the caller may rename the application or the timeouts, but results must be UTF-8.
        // A worker cut off from the server (a link down, a host gone without a reset) must
        // notice within about a minute, not after the kernel's ~15 minutes of retransmission:
        // keepalives end a connection that waits for an answer in silence, tcp_user_timeout one
        // whose sent data stays unacknowledged. Both only ever close a dead connection.
        let parameters = [
            ("application_name", "darkroom"), ("connect_timeout", "10"),
            ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"), ("keepalives_count", "3"),
            ("tcp_user_timeout", "60000"),
            ("dbname", conninfo), ("client_encoding", "UTF8"),
        ]
        let connection = withCStrings(parameters.map { $0.0 as String? } + [nil]) { keywords in
            withCStrings(parameters.map { $0.1 as String? } + [nil]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let connection else {
            throw PostgresError(
                code: .connectionFailed, message: "libpq could not allocate a connection (out of memory)")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = ConnectionString.redacting(Self.errorMessage(of: connection), secretsOf: conninfo)
            PQfinish(connection)
            throw PostgresError(code: .connectionFailed, message: message)
        }
        handle = connection
        PQsetNoticeReceiver(
            handle,
            { context, result in
                guard let context, let result else { return }
                let connection = Unmanaged<PostgresConnection>.fromOpaque(context).takeUnretainedValue()
                connection.onNotice?(PostgresNotice(result: result))
            }, Unmanaged.passUnretained(self).toOpaque())
        try configureSession()
    }

    deinit {
        PQfinish(handle)
    }

    /// False once the connection has broken; `reset()` tries to re-open it.
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server process serving this connection (as reported in notifications it sends).
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// Closes and re-opens the connection with the same parameters. Session state
    /// (LISTENs, SETs, temporary tables) is lost.
    public func reset() throws {
        PQreset(handle)
        guard isConnected else {
            throw PostgresError(code: .connectionFailed, message: Self.errorMessage(of: handle))
        }
        transactionDepth = 0
        try configureSession()
    }

    /// Runs one statement with `$1`, `$2`, ... bound to `binds` (extended query protocol).
    ///
    /// Results come in binary by default, so values are read by type without parsing text.
    /// `.text` gives the server's own spelling of every value (as psql shows it), for printing
    /// whatever an operator's SQL returns; Dates and bytea cannot be decoded from it.
    public func query(_ sql: String, _ binds: [PostgresBind] = [], resultFormat: PostgresFormat = .binary) throws
        -> PostgresRows
    {
        let encoded = try binds.map { try $0.encoded() }
        if let index = encoded.firstIndex(where: { ($0.bytes?.count ?? 0) > Int(Int32.max) }) {
            throw PostgresError(
                code: .invalidParameter,
                message:
                    "parameter $\(index + 1) is over 2 GiB, more than libpq can send; PostgreSQL stores at most 1 GB per value",
                query: sql)
        }
        let types = encoded.map(\.typeOID)
        let lengths = encoded.map { Int32(clamping: $0.bytes?.count ?? 0) }
        let formats = encoded.map(\.format.rawValue)
        let result = withCStrings(encoded.map(\.bytes)) { values in
            PQexecParams(handle, sql, Int32(binds.count), types, values, lengths, formats, resultFormat.rawValue)
        }
        return try consume(result, query: sql)
    }

    /// Runs one or more `;`-separated statements without parameters (simple query protocol),
    /// as migrations need. Outside a transaction block they run as one implicit transaction,
    /// so a failing statement undoes the earlier ones.
    public func execute(_ sql: String) throws {
        _ = try consume(PQexec(handle, sql), query: sql)
    }

    /// `name` quoted as an SQL identifier, e.g. `my "db"` → `"my ""db"""`.
    public func quotedIdentifier(_ name: String) throws -> String {
        let utf8 = Array(name.utf8)
        guard
            let quoted = utf8.withUnsafeBufferPointer({ buffer in
                buffer.withMemoryRebound(to: CChar.self) { PQescapeIdentifier(handle, $0.baseAddress, $0.count) }
            })
        else {
            throw PostgresError(
                code: .queryFailed, message: "cannot quote identifier: \(Self.errorMessage(of: handle))")
        }
        defer { PQfreemem(quoted) }
        return String(cString: quoted)
    }

    // MARK: - Internals

    /// Binary results do not depend on DateStyle, but text does: results fetched as text (job
    /// output shown to operators), `::text` casts and text parameters (`'…'::timestamptz`) should
    /// read and print ISO dates whatever the server's default. The server reports DateStyle at
    /// startup (ParameterStatus), so the common case costs no round trip and leaves no session
    /// state. Only a server configured for another DateStyle gets a `SET DateStyle`, which
    /// PgBouncer tracks per client even in transaction pooling mode.
    private func configureSession() throws {
        let dateStyle = PQparameterStatus(handle, "DateStyle").map { String(cString: $0) } ?? ""
        if !dateStyle.hasPrefix("ISO") {
            try execute("SET DateStyle TO 'ISO, MDY'")
        }
    }

    /// A run-time parameter the server reported (e.g. "server_version", "DateStyle", "TimeZone").
    public func parameterStatus(_ name: String) -> String? {
        PQparameterStatus(handle, name).map { String(cString: $0) }
    }

    /// Turns a `PGresult` into rows or an error, and clears it.
    private func consume(_ result: OpaquePointer?, query: String) throws -> PostgresRows {
        guard let result else {
            throw PostgresError(
                code: isConnected ? .unexpectedResult : .connectionLost, message: Self.errorMessage(of: handle),
                query: query)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresRows(copying: result)
        case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
            throw PostgresError(
                code: isConnected ? .queryFailed : .connectionLost, result: result,
                fallbackMessage: Self.errorMessage(of: handle), query: query)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            abandonCopy()
            throw PostgresError(
                code: .unexpectedResult, message: "COPY is not supported here; use INSERT or SELECT", query: query)
        default:
            throw PostgresError(
                code: .unexpectedResult,
                message: "unexpected result status \(String(cString: PQresStatus(PQresultStatus(result))))",
                query: query)
        }
    }

    /// Leaves COPY mode so the connection can run the next command.
    private func abandonCopy() {
        _ = PQputCopyEnd(handle, "COPY is not supported by this client")
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(handle, &buffer, 0) > 0 {
            PQfreemem(buffer)
        }
        while let pending = PQgetResult(handle) {
            PQclear(pending)
        }
    }

    static func errorMessage(of connection: OpaquePointer) -> String {
        guard let text = PQerrorMessage(connection) else { return "unknown libpq error" }
        let message = String(cString: text).trimmingTrailingNewlines()
        return message.isEmpty ? "unknown libpq error" : message
    }
}

@available(*, unavailable, message: "libpq connections are not thread-safe; open one PostgresConnection per thread")
extension PostgresConnection: Sendable {}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}

/// Packs `values` into one buffer, each followed by a NUL, and calls `body` with pointers into it
/// (`nil` entries stay `nil`). The pointers are valid only inside `body`. Binary values may hold
/// NULs themselves; libpq reads those by the lengths passed beside them.
func withCStrings<Result>(_ values: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) throws -> Result) rethrows -> Result {
    var storage: [UInt8] = [0]  // never empty, so the buffer always has a base address
    var offsets: [Int?] = []
    for value in values {
        guard let value else {
            offsets.append(nil)
            continue
        }
        offsets.append(storage.count)
        storage += value
        storage.append(0)
    }
    return try storage.withUnsafeBufferPointer { buffer in
        let base = UnsafeRawPointer(buffer.baseAddress!)
        return try body(offsets.map { offset in offset.map { (base + $0).assumingMemoryBound(to: CChar.self) } })
    }
}

func withCStrings<Result>(_ values: [String?], _ body: ([UnsafePointer<CChar>?]) throws -> Result) rethrows -> Result {
    try withCStrings(values.map { $0.map { Array($0.utf8) } }, body)
}
