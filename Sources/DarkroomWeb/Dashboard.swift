import DarkroomDatabase
import DarkroomImaging
import DarkroomMetricsEndpoint
import DarkroomStorage
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// `darkroom serve`: the routes, their middleware and what they share. Pages read through the
/// same `JobQueue`/`AssetStore` calls as `darkroom status` and `darkroom history`; actions call
/// the operator API (`retry_job`, `cancel_batch`, …) with the account named as the actor.
public struct Dashboard: Sendable {
    public struct Options: Sendable {
        /// nil: nobody signs in; whoever reaches the loopback address acts as `local`, an operator.
        public var accounts: AccountFile?
        /// Mark the session cookie Secure (behind TLS, or a proxy that terminates it).
        public var secureCookies: Bool
        public var sessionLifetime: Duration
        /// The host names (and addresses) requests must be addressed to, besides the loopback names.
        public var allowedHosts: Set<String>

        public init(
            accounts: AccountFile?, secureCookies: Bool = false, sessionLifetime: Duration = .seconds(12 * 3600),
            allowedHosts: Set<String> = []
        ) {
            self.accounts = accounts
            self.secureCookies = secureCookies
            self.sessionLifetime = sessionLifetime
            self.allowedHosts = Set(allowedHosts.compactMap(HostCheck<DashboardContext>.configuredName))
                .union(HostCheck<DashboardContext>.loopbackNames)
        }
    }

    /// The account every request acts as when no account file is configured.
    public static let localAccount = "local"
    public static let sessionCookie = "darkroom_session"

    public let pool: DatabasePool
    public let thumbnails: Thumbnails
    let audit: ActionAudit
    /// Signs the sign-in form's CSRF token (`SignInForms.load`: the key every replica shares).
    let signInForms: SignInForms
    let options: Options
    let logger: Logger

    public init(
        pool: DatabasePool, thumbnails: Thumbnails, audit: ActionAudit, signInForms: SignInForms, options: Options,
        logger: Logger
    ) {
        self.pool = pool
        self.thumbnails = thumbnails
        self.audit = audit
        self.signInForms = signInForms
        self.options = options
        self.logger = logger
    }

    /// The router with `/metrics` (open), sessions (serve's: `DatabaseSessionStore`), the
    /// sign-in gate and every route.
    public func router(sessions: any PersistDriver) -> Router<DashboardContext> {
        let router = Router(context: DashboardContext.self)
        // Before the session and the sign-in gate: Prometheus has no session. This process's
        // metrics and the queue's, read from the views at each scrape through the pool.
        router.addMetrics(database: { [pool] read in try await pool.withConnection(read) })
        // Prometheus scrapes by address, and the metrics carry no session: only the pages check.
        router.add(middleware: HostCheck(allowed: options.allowedHosts))
        router.add(
            middleware: SessionMiddleware(
                storage: sessions,
                configuration: SessionMiddlewareConfiguration(
                    sessionCookieParameters: SessionCookieParameters(
                        name: Self.sessionCookie, path: "/", secure: options.secureCookies,
                        sameSite: .strict),
                    defaultSessionExpiration: options.sessionLifetime)))
        router.add(
            middleware: SignInGate(
                localOperator: options.accounts == nil ? Self.localAccount : nil,
                signInForms: signInForms, secureCookies: options.secureCookies))

        router.get("/dashboard.css") { _, _ in Self.asset(StaticAssets.css, type: "text/css; charset=utf-8") }
        router.get("/dashboard.js") { _, _ in Self.asset(StaticAssets.script, type: "text/javascript; charset=utf-8") }
        SignInRoutes(dashboard: self).add(to: router)
        PageRoutes(dashboard: self).add(to: router)
        ActionRoutes(dashboard: self).add(to: router)
        return router
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok, headers: Page.securityHeaders([.contentType: type, .cacheControl: "public, max-age=3600"]),
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Runs `body` on a pool thread with a connection; maps a lost database to 503.
    func read<T: Sendable>(_ body: @escaping @Sendable (DatabaseConnection) throws -> T) async throws -> T {
        do {
            return try await pool.withConnection(body)
        } catch let error as DatabaseError where error.isConnectionFailure {
            throw HTTPError(.serviceUnavailable, message: "cannot reach PostgreSQL: \(error.message)")
        }
    }
}
