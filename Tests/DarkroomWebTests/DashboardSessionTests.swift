import DarkroomDatabase
import DarkroomTestSupport
import DarkroomWeb
import Foundation
import Hummingbird
import LibPQ
import Testing

/// serve's sessions in PostgreSQL (only the token's hash stored; none before signing in; a
/// restart or another replica knows the session; ended ones removed; a viewer login cannot mint
/// an operator), the sign-in form's stateless CSRF token and the sign-in throttle (per account
/// name and per client address, with backoff).
@Suite struct DashboardSessionTests {
    static func app(_ dashboard: Dashboard, pool: DatabasePool) -> some ApplicationProtocol {
        Application(router: dashboard.router(sessions: DatabaseSessionStore(pool: pool, logger: .quiet)))
    }

    /// The cookie's value (the session token).
    static func token(_ cookie: String?) throws -> String {
        String(try #require(cookie?.split(separator: "=", maxSplits: 1).last))
    }

    @Test func aSessionSurvivesARestartAndIsStoredOnlyAsAHash() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            let cookie = try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                var browser = Browser(client)
                let signedIn = try await browser.signIn(DashboardFixture.operatorName)
                #expect(signedIn.status == .seeOther)
                return browser.cookie
            }
            let token = try Self.token(cookie)
            let rows = try fixture.query(
                "SELECT token_hash, account, role, data::text AS data FROM darkroom.dashboard_sessions WHERE account IS NOT NULL"
            )
            #expect(rows.count == 1)
            #expect(try rows[0]["token_hash"].decode([UInt8].self) == DatabaseSessionStore.tokenHash("hbs." + token))
            #expect(try rows[0]["account"].decode(String.self) == DashboardFixture.operatorName)
            #expect(try rows[0]["role"].decode(String.self) == "operator")
            #expect(try !(rows[0]["data"].decode(String.self)).contains(token), "the token is stored nowhere")

            // A new process (its own pool and router): the same cookie is still signed in, and
            // signing out there ends the session everywhere.
            let restarted = DatabasePool(url: fixture.url, size: 1, logger: .quiet)
            defer { restarted.close() }
            try await Self.app(dashboard, pool: restarted).test(.router) { client in
                var browser = Browser(client)
                browser.cookie = cookie
                let page = try await browser.get("/failures")
                #expect(page.status == .ok, "signed in after the restart")
                #expect(page.body.contains("action=\"/jobs/\(fixture.failedJobID)/retry\""), "still an operator")
                let out = try await browser.post("/sign-out", [:], csrf: page.csrfToken)
                #expect(out.status == .seeOther)
            }
            try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                var browser = Browser(client)
                browser.cookie = cookie
                let page = try await browser.get("/failures")
                #expect(page.status == .seeOther, "signed out on the other replica")
            }
            #expect(try fixture.query("SELECT 1 FROM darkroom.dashboard_sessions WHERE account IS NOT NULL").isEmpty)
        }
    }

    /// Fetching the sign-in page, or failing to sign in, stores nothing: the form's token is
    /// signed for the browser's sign-in cookie. It is refused with another browser's cookie,
    /// without one, once expired, altered, or sent from another site.
    @Test func theSignInFormStoresNothingAndItsTokenServesOnlyItsOwnBrowser() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            @Sendable func sessions() throws -> Int {
                try fixture.query("SELECT count(*) AS n FROM darkroom.dashboard_sessions")[0]["n"].decode(Int.self)
            }
            let signInCookie = SignInForms.cookieName(secure: false)
            let right = ["name": DashboardFixture.operatorName, "password": DashboardFixture.password]
            let before = try sessions()
            try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                for _ in 0..<5 {
                    var visitor = Browser(client)
                    #expect(try await visitor.get("/sign-in").status == .ok)
                    #expect(visitor.cookie == nil && visitor.cookies[signInCookie] != nil)
                }
                var browser = Browser(client)
                let form = try await browser.get("/sign-in")
                let wrong = try await browser.post(
                    "/sign-in", ["name": DashboardFixture.operatorName, "password": "guess"], csrf: form.csrfToken)
                #expect(wrong.status == .unauthorized && wrong.csrfToken != nil)
                #expect(try sessions() == before, "no row for a visitor, nor for a failed sign-in")

                var other = Browser(client)
                let othersToken = try await other.get("/sign-in").csrfToken
                #expect(
                    try await browser.post("/sign-in", right, csrf: othersToken).status == .forbidden,
                    "another browser's token")
                var cookieless = Browser(client)
                #expect(
                    try await cookieless.post("/sign-in", right, csrf: form.csrfToken).status == .forbidden,
                    "a token without its cookie")
                let cookie = try #require(browser.cookies[signInCookie])
                let forms = try SignInForms.load(from: try DatabaseConnection(fixture.url))
                let expired = forms.token(
                    for: cookie, now: Date(timeIntervalSinceNow: -Double(SignInForms.lifetime) - 5))
                #expect(
                    try await browser.post("/sign-in", right, csrf: expired).status == .forbidden, "an expired token")
                let token = try #require(form.csrfToken)
                let middle = token.index(token.startIndex, offsetBy: 20)  // a byte of the code
                let altered = token.replacingCharacters(in: middle...middle, with: token[middle] == "A" ? "B" : "A")
                #expect(
                    try await browser.post("/sign-in", right, csrf: altered).status == .forbidden, "an altered token")
                for site in ["cross-site", "same-site"] {
                    browser.fetchSite = site
                    #expect(
                        try await browser.post("/sign-in", right, csrf: token).status == .forbidden, "sent from \(site)"
                    )
                }
                #expect(try sessions() == before)

                // Signed with the key another replica loads (the same: one row): good here too.
                browser.fetchSite = "same-origin"
                let signedIn = try await browser.post("/sign-in", right, csrf: forms.token(for: cookie))
                #expect(signedIn.status == .seeOther)
                #expect(
                    try fixture.query("SELECT count(*) AS n FROM darkroom.dashboard_keys")[0]["n"].decode(Int.self) == 1
                )
                #expect(browser.cookie != nil && browser.cookies[signInCookie] == nil)
                #expect(try sessions() == before + 1, "one row, once signed in")
            }
        }
    }

    @Test func endedSessionsAreRefusedAndRemoved() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.viewerName)
                let before = try await browser.get("/")
                #expect(before.status == .ok)
                _ = try fixture.query(
                    "UPDATE darkroom.dashboard_sessions SET expires_at = now() - interval '1 second' WHERE account IS NOT NULL"
                )
                let after = try await browser.get("/")
                #expect(after.status == .seeOther, "an ended session signs nobody in")
            }
            let removed = try fixture.query("SELECT darkroom.forget_expired_sessions() AS n")[0]["n"].decode(Int64.self)
            #expect(removed >= 1)
            #expect(try fixture.query("SELECT 1 FROM darkroom.dashboard_sessions WHERE expires_at <= now()").isEmpty)
            // Bounds: no session for ever, none of zero length.
            let refused: [Double] = [0, -1, 32 * 86400]
            for seconds in refused {
                #expect(throws: DatabaseError.self) {
                    try fixture.query(
                        "SELECT darkroom.save_session($1, '{}'::jsonb, $2, true)",
                        [.bytes(DatabaseSessionStore.tokenHash("x")), .double(seconds)])
                }
            }
        }
    }

    /// A viewer login stores a viewer's session even for an operator account: calling the
    /// functions directly mints no operator.
    @Test func aViewerLoginCannotMintAnOperatorSession() async throws {
        let viewer = DashboardFixture.viewerLogin("watcher")
        try await DashboardFixture.with(login: viewer) { fixture, dashboard in
            try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                var browser = Browser(client)
                let signedIn = try await browser.signIn(DashboardFixture.operatorName)
                #expect(signedIn.status == .seeOther)
                let page = try await browser.get("/failures")
                #expect(page.status == .ok)
                #expect(!page.body.contains("action=\"/jobs/\(fixture.failedJobID)/retry\""), "no operator's buttons")
            }
            let roles = try fixture.query(
                "SELECT role FROM darkroom.dashboard_sessions WHERE account = $1",
                [.text(DashboardFixture.operatorName)])
            #expect(try roles.map { try $0["role"].decode(String.self) } == ["viewer"])
        }
    }

    /// A person's operator (or viewer) login cannot store a session for an account it names, nor
    /// read the sign-in form's key: only members of the serve role keep the dashboard's sessions,
    /// and each session records the login that stored it.
    @Test func onlyServesLoginMayStoreASession() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            let roles = TestDatabase.accessRoles(forDatabaseAt: fixture.url)
            let owner = try DatabaseConnection(fixture.url)
            for (name, group) in [("mallory", roles.operatorRole!), ("vic", roles.viewer!)] {
                let login = TestDatabase.roleName(name, forDatabaseAt: fixture.url)
                try owner.execute(
                    "CREATE ROLE \(try owner.quotedIdentifier(login)) LOGIN IN ROLE \(try owner.quotedIdentifier(group))"
                )
                let connection = try DatabaseConnection(try TestDatabase.url(fixture.url, as: login))
                for sql in [
                    "SELECT darkroom.save_session($1, '{\"user\":\"olga\",\"role\":\"operator\"}'::jsonb, 3600, true)",
                    "SELECT darkroom.dashboard_key('sign-in')",
                ] {
                    let binds: [PostgresBind] =
                        sql.contains("$1") ? [.bytes(DatabaseSessionStore.tokenHash("mine"))] : []
                    let refused = try #require(throws: DatabaseError.self) { try connection.query(sql, binds) }
                    #expect(refused.postgresError.sqlState == .insufficientPrivilege, "\(name): \(refused)")
                }
            }
            #expect(try fixture.query("SELECT 1 FROM darkroom.dashboard_sessions").isEmpty)
        }
        let serveLogin = DashboardFixture.viewerLogin("dashboard")
        try await DashboardFixture.with(login: serveLogin) { fixture, dashboard in
            try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                var browser = Browser(client)
                let signedIn = try await browser.signIn(DashboardFixture.viewerName)
                #expect(signedIn.status == .seeOther)
            }
            let stored = try fixture.query("SELECT database_user FROM darkroom.dashboard_sessions")
            #expect(
                try stored.map { try $0["database_user"].decode(String.self) }
                    == [TestDatabase.roleName("dashboard", forDatabaseAt: fixture.url)])
        }
    }

    @Test func failedSignInsBackOffPerAccountAndPerAddress() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard, pool: dashboard.pool).test(.router) { client in
                var browser = Browser(client)
                let form = try await browser.get("/sign-in")
                for _ in 0..<5 {
                    let wrong = try await browser.post(
                        "/sign-in", ["name": DashboardFixture.operatorName, "password": "guess"], csrf: form.csrfToken)
                    #expect(wrong.status == .unauthorized)
                }
                let counted = try fixture.query("SELECT scope, failures FROM darkroom.sign_in_failures ORDER BY scope")
                #expect(
                    try counted.map { "\(try $0["scope"].decode(String.self)) \(try $0["failures"].decode(Int.self))" }
                        == ["account 5", "address 5"])
                // Seven guesses more (written here, so the wait, 128 s, cannot run out before the
                // next request on a loaded machine): the right password waits too, unchecked.
                _ = try fixture.query("UPDATE darkroom.sign_in_failures SET failures = 12")
                let throttled = try await browser.post(
                    "/sign-in", ["name": DashboardFixture.operatorName, "password": DashboardFixture.password],
                    csrf: form.csrfToken)
                #expect(throttled.status == .tooManyRequests)
                #expect((100...128).contains(Int(throttled.headers[.retryAfter] ?? "") ?? 0))
                #expect(throttled.body.contains("Too many failed sign-ins"))
                #expect(
                    try fixture.auditTrail().contains {
                        $0.actor == DashboardFixture.operatorName && $0.result.hasPrefix("refused: throttled")
                    })

                // Once the wait is over (moved into the past here), the right password works and clears the
                // name's count; the address's stays until a day passes without a failure.
                _ = try fixture.query(
                    "UPDATE darkroom.sign_in_failures SET last_failure_at = now() - interval '129 seconds'")
                let signedIn = try await browser.post(
                    "/sign-in", ["name": DashboardFixture.operatorName, "password": DashboardFixture.password],
                    csrf: form.csrfToken)
                #expect(signedIn.status == .seeOther)
                #expect(
                    try fixture.query("SELECT scope FROM darkroom.sign_in_failures").map {
                        try $0["scope"].decode(String.self)
                    } == ["address"])
            }

            // The rule, in SQL: five free, then 1 s doubling to 15 minutes; per name and per address.
            let waits = try (0...30).map { failures in
                try fixture.query(
                    "SELECT extract(epoch FROM darkroom.sign_in_backoff($1::int))::double precision AS s",
                    [.int(Int64(failures))])[0]["s"]
                    .decode(Double.self)
            }
            #expect(Array(waits[0..<5]) == [0, 0, 0, 0, 0])
            #expect(Array(waits[5..<9]) == [1, 2, 4, 8])
            #expect(waits.last == 900 && waits == waits.sorted())
            for _ in 0..<5 { _ = try fixture.query("SELECT darkroom.record_sign_in('mallory', '192.0.2.1', false)") }
            func wait(_ account: String, _ address: String) throws -> Double {
                try fixture.query("SELECT darkroom.sign_in_wait($1, $2) AS w", [.text(account), .text(address)])[0]["w"]
                    .decode(Double.self)
            }
            #expect(try wait("mallory", "198.51.100.7") > 0, "the account, from anywhere")
            #expect(try wait("olga", "192.0.2.1") > 0, "the address, for any account")
            #expect(try wait("olga", "198.51.100.7") == 0)
            // Whoever holds one account cannot wipe an address's count by signing in between
            // guesses at other accounts' passwords, each name guessed fewer than five times.
            for name in ["ann", "bob", "cy", "dee", "eve"] {
                _ = try fixture.query("SELECT darkroom.record_sign_in($1, '203.0.113.9', false)", [.text(name)])
            }
            _ = try fixture.query("SELECT darkroom.record_sign_in('olga', '203.0.113.9', true)")
            #expect(try wait("fay", "203.0.113.9") > 0, "a success elsewhere does not reset the address")
        }
    }
}
