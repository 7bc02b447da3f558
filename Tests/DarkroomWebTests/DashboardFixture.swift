import ByteStreams
import DarkroomDatabase
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWeb
import Foundation
import Hummingbird
import LibPQ
import Logging

/// A migrated database with one real photo, a batch with a failure, an account file with an
/// operator and a viewer, and the dashboard over them.
struct DashboardFixture {
    static let operatorName = "olga", viewerName = "victor", password = "correct horse battery"

    var url: String
    var storagePath: String
    var assetID: Int64
    var failedJobID: Int64
    var queuedJobID: Int64
    var accountsPath: String
    var auditPath: String

    /// Runs `body` with the fixture; everything is removed afterwards.
    /// `login`: given the database URL, the URL the dashboard's pool logs in with (default: the owner's).
    /// It runs on threads of its own (`DedicatedThreads`), the in-process dashboard's handlers
    /// too: synchronous suites running beside it hold the cooperative pool's threads for minutes.
    /// A `login` for `with`: a new login role `name` that is a member of the viewer role and of
    /// the serve role (which keeps the dashboard's sessions), as serve's own login would be.
    static func viewerLogin(_ name: String) -> (String) throws -> String {
        { url in
            let role = TestDatabase.roleName(name, forDatabaseAt: url)
            let owner = try DatabaseConnection(url)
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            try owner.execute(
                "CREATE ROLE \(try owner.quotedIdentifier(role)) LOGIN IN ROLE "
                    + (try owner.quotedIdentifier(roles.viewer!)) + ", " + (try owner.quotedIdentifier(roles.serve!)))
            return try TestDatabase.url(url, as: role)
        }
    }

    /// `thumbnailCacheBytes`: 0 makes every thumbnail from the storage.
    static func with<T>(
        accounts withAccounts: Bool = true, secureCookies: Bool = false, login: (String) throws -> String = { $0 },
        thumbnailCacheBytes: Int = 64 << 20, _ body: (DashboardFixture, Dashboard) async throws -> T
    ) async throws -> T {
        let threads = DedicatedThreads(name: "dashboard-test")
        defer { threads.shutdown() }
        return try await withTaskExecutorPreference(threads) {
            try await prepared(
                accounts: withAccounts, secureCookies: secureCookies, login: login,
                thumbnailCacheBytes: thumbnailCacheBytes, body)
        }
    }

    private static func prepared<T>(
        accounts withAccounts: Bool, secureCookies: Bool, login: (String) throws -> String, thumbnailCacheBytes: Int,
        _ body: (DashboardFixture, Dashboard) async throws -> T
    ) async throws -> T {
        try await TestDatabase.withFreshDatabase { url in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "darkroom-web-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            let storage = try StorageRoot.create(folder + "/storage")
            try storage.prepare()

            // A real photo (450×600 stored, orientation 6) under its content key, registered like an import.
            let photo = try Fixtures.bytes(of: Fixtures.exifSample("orientation/landscape_6.jpg"))
            let key = StorageLayout.original(sha256: String(repeating: "ab", count: 32))
            try storage.publish(key) { upload in try photo.withUnsafeBytes { try upload.write($0) } }
            let asset = try AssetStore(connection).register(
                NewAsset(
                    originalPath: key.rawValue, contentSHA256: String(repeating: "ab", count: 32),
                    byteSize: Int64(photo.count),
                    pixelWidth: 450, pixelHeight: 600, orientation: 6, latitude: 43.4674, longitude: 11.8851,
                    creationDate: Date(timeIntervalSince1970: 1_252_000_000),
                    creationDateSource: "EXIF <DateTimeOriginal>")
            ).id

            let queue = JobQueue(connection, logger: .quiet)
            let failing = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[{"op":"sepia"}]}"#.utf8), batch: "spring")
            let claimed = try queue.claim(workerID: "test-worker", limit: 1, lease: .seconds(60))
            _ = try queue.fail(
                claimed[0], .permanent(code: "jpeg_corrupt", message: "the original is damaged at byte 4096"),
                retryDelay: .zero)
            let queued = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[{"op":"vignette"}]}"#.utf8), batch: "spring")

            var accounts = AccountFile(path: folder + "/accounts")
            try accounts.set(name: operatorName, role: .operator, password: password)
            try accounts.set(name: viewerName, role: .viewer, password: password)
            try accounts.save()

            let fixture = DashboardFixture(
                url: url, storagePath: storage.location, assetID: asset, failedJobID: failing,
                queuedJobID: queued, accountsPath: accounts.path, auditPath: folder + "/audit.jsonl")
            let loginURL = try login(url)
            let pool = DatabasePool(url: loginURL, size: 2, logger: .quiet)
            defer { pool.close() }
            let dashboard = Dashboard(
                pool: pool,
                thumbnails: Thumbnails(storage: storage, memoryBudget: 16 << 20, cacheBytes: thumbnailCacheBytes),
                audit: try ActionAudit(path: fixture.auditPath, logger: .quiet),
                signInForms: try SignInForms.load(from: try DatabaseConnection(loginURL)),
                options: .init(
                    accounts: withAccounts ? try AccountFile.load(accounts.path) : nil, secureCookies: secureCookies),
                logger: .quiet)
            return try await body(fixture, dashboard)
        }
    }

    /// The audit file's events, oldest first.
    func auditTrail() throws -> [ActionAudit.Event] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try String(contentsOfFile: auditPath, encoding: .utf8).split(separator: "\n").map {
            try decoder.decode(ActionAudit.Event.self, from: Data($0.utf8))
        }
    }

    func query(_ sql: String, _ binds: [PostgresBind] = []) throws -> PostgresRows {
        try DatabaseConnection(url).query(sql, binds)
    }
}

/// A browser's part: keeps its cookies, finds the CSRF token in pages, sends forms.
struct Browser {
    let client: any TestClientProtocol
    /// name → value, as the server last set them.
    var cookies: [String: String] = [:]
    /// Sent as Sec-Fetch-Site when set (a browser says where a request comes from).
    var fetchSite: String?
    /// Sent as Referer when set: the page a form was on.
    var referer: String?

    init(_ client: any TestClientProtocol) { self.client = client }

    /// The session cookie, `name=value`.
    var cookie: String? {
        get { cookies[Dashboard.sessionCookie].map { "\(Dashboard.sessionCookie)=\($0)" } }
        set {
            cookies[Dashboard.sessionCookie] = newValue.map {
                String($0.split(separator: "=", maxSplits: 1).last ?? "")
            }
        }
    }

    struct Page {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: String
        var bytes: [UInt8]

        /// The value of the first hidden `csrf` field.
        var csrfToken: String? {
            guard let start = body.range(of: "name=\"csrf\" value=\"") else { return nil }
            let rest = body[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }
    }

    mutating func get(_ path: String) async throws -> Page {
        try await send(path, method: .get, body: nil)
    }

    /// A form POST; `csrf` nil leaves the field out.
    mutating func post(_ path: String, _ fields: [String: String], csrf: String?) async throws -> Page {
        var all = fields
        if let csrf { all["csrf"] = csrf }
        let body = all.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(
                separator: "&")
        return try await send(path, method: .post, body: body)
    }

    /// Signs in through the form, as a person would.
    mutating func signIn(_ name: String, password: String = DashboardFixture.password) async throws -> Page {
        let form = try await get("/sign-in")
        return try await post("/sign-in", ["name": name, "password": password, "next": "/"], csrf: form.csrfToken)
    }

    private mutating func send(_ path: String, method: HTTPRequest.Method, body: String?) async throws -> Page {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty {
            headers[.cookie] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: "; ")
        }
        if body != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        if let fetchSite { headers[.init("Sec-Fetch-Site")!] = fetchSite }
        if let referer { headers[.referer] = referer }
        let response = try await client.execute(
            uri: path, method: method, headers: headers,
            body: body.map { ByteBuffer(string: $0) })
        for setCookie in response.headers[values: .setCookie] {
            let pair = setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
            // An empty value (or an expiry in the past) deletes the cookie.
            cookies[pair[0]] = pair.count < 2 || pair[1].isEmpty || setCookie.contains("Max-Age=0") ? nil : pair[1]
        }
        let bytes = Array(response.body.readableBytesView)
        return Page(
            status: response.status, headers: response.headers, body: String(decoding: bytes, as: UTF8.self),
            bytes: bytes)
    }
}
