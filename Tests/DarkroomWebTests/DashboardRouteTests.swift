import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import Hummingbird
import LibPQ
import Testing

@testable import DarkroomWeb

/// The routes as a browser meets them, against a real PostgreSQL: sign-in, sessions, CSRF,
/// roles, the pages' numbers (the same calls `darkroom status` makes) and the actions.
@Suite struct DashboardRouteTests {
    static func app(_ dashboard: Dashboard) -> some ApplicationProtocol {
        Application(router: dashboard.router(sessions: MemoryPersistDriver()))
    }

    @Test func withoutASessionPagesRedirectToSignInAndActionsAreRefused() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                for path in [
                    "/", "/batches/spring", "/failures", "/filters", "/assets/\(fixture.assetID)",
                    "/assets/\(fixture.assetID)/original.jpg",
                ] {
                    let page = try await browser.get(path)
                    #expect(page.status == .seeOther, "\(path)")
                    let location = try #require(page.headers[.location])
                    #expect(location.hasPrefix("/sign-in?next=%2F"))
                    #expect(location.dropFirst("/sign-in?next=".count).removingPercentEncoding == path)
                }
                var stranger = Browser(client)
                let refused = try await stranger.post("/jobs/\(fixture.failedJobID)/retry", [:], csrf: "guess")
                #expect(refused.status == .forbidden)
                #expect(
                    try fixture.query("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(fixture.failedJobID)])[0][
                        "state"
                    ].decode(String.self) == "failed")
            }
        }
    }

    @Test func signInSetsAStrictHttpOnlyCookieAndChecksThePassword() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                let form = try await browser.get("/sign-in")
                #expect(form.status == .ok)
                let cookie = try #require(form.headers[.setCookie])
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict"))
                #expect(!cookie.contains("Secure"))
                #expect(form.csrfToken != nil)

                let noToken = try await browser.post(
                    "/sign-in", ["name": DashboardFixture.operatorName, "password": DashboardFixture.password],
                    csrf: nil)
                #expect(noToken.status == .forbidden)
                let forged = try await browser.post(
                    "/sign-in", ["name": DashboardFixture.operatorName, "password": DashboardFixture.password],
                    csrf: "forged-token-forged-token-forged-token-12")
                #expect(forged.status == .forbidden)
                let wrong = try await browser.post(
                    "/sign-in", ["name": DashboardFixture.operatorName, "password": "not the password"],
                    csrf: form.csrfToken)
                #expect(wrong.status == .unauthorized)
                #expect(wrong.body.contains("Wrong name or password."))
                let unknown = try await browser.post(
                    "/sign-in", ["name": "mallory", "password": DashboardFixture.password], csrf: form.csrfToken)
                #expect(unknown.status == .unauthorized)

                #expect(browser.cookie == nil, "no session before signing in")
                let signedIn = try await browser.post(
                    "/sign-in",
                    ["name": DashboardFixture.operatorName, "password": DashboardFixture.password, "next": "/batches"],
                    csrf: form.csrfToken)
                #expect(signedIn.status == .seeOther)
                #expect(signedIn.headers[.location] == "/batches")
                #expect(browser.cookie != nil, "signing in starts a session")
                #expect(browser.cookies[SignInForms.cookieName(secure: false)] == nil, "and drops the sign-in cookie")
                let overview = try await browser.get("/")
                #expect(overview.status == .ok)
                #expect(overview.body.contains("\(DashboardFixture.operatorName) · operator"))
                let audit = try fixture.auditTrail()
                #expect(
                    audit.contains {
                        $0.action == "sign-in" && $0.actor == "olga" && $0.result == "signed in as operator"
                    })
                #expect(
                    audit.contains {
                        $0.action == "sign-in" && $0.actor == "mallory"
                            && $0.result == "refused: wrong name or password"
                    })
            }
        }
    }

    @Test func pagesShowTheNumbersTheCommandLineReads() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.viewerName)
                let connection = try DatabaseConnection(fixture.url)
                let queue = JobQueue(connection, logger: .quiet)
                let progress = try #require(try queue.progress(ofBatch: "spring"))

                let batch = try await browser.get("/batches/spring")
                #expect(batch.status == .ok)
                #expect(batch.body.contains(HTML.escape(progress.summaryLine)))
                #expect(batch.body.contains("max=\"2\" value=\"1\""))
                #expect(batch.body.contains("jpeg_corrupt"))
                #expect(!batch.body.contains("/batches/spring/retry"), "a viewer gets no action buttons")

                let overview = try await browser.get("/")
                let status = try queue.status(recentFailures: 5)
                #expect(
                    overview.body.contains(
                        "<th scope=\"row\">queued</th><td class=\"num\">\(status.countsByState[.queued]!)</td>"))
                #expect(overview.body.contains("<th scope=\"row\">failed</th><td class=\"num\">1</td>"))
                #expect(overview.body.contains("job \(fixture.queuedJobID), runnable since"))
                // Each worker's memory, as its heartbeat reports it; an older release reports none.
                _ = try queue.heartbeat(
                    WorkerIdentity(name: "budgeted/0", host: "h", pid: 7, release: "0.24.0"), lease: .seconds(60),
                    jobs: [], formats: [], memory: WorkerMemoryReport(reservedBytes: 48 << 20, jobsWaiting: 2))
                _ = try queue.heartbeat(
                    WorkerIdentity(name: "older/0", host: "h", pid: 8), lease: .seconds(60), jobs: [], formats: [])
                let workers = try await browser.get("/")
                #expect(workers.body.contains("<td>48 MiB in use, 2 waiting for memory</td>"))
                #expect(workers.body.contains("<td>not reported</td>"))
                // The fixture's asset shows its original: nothing is stale against this build.
                #expect(overview.body.contains("<p class=\"big\" id=\"stale\">0</p>"))
                #expect(overview.body.contains("<code>darkroom rerender --stale</code>"))

                let failures = try await browser.get("/failures?code=jpeg_corrupt&batch=spring")
                #expect(failures.body.contains("id=\"job-\(fixture.failedJobID)\""))
                #expect(failures.body.contains("the original is damaged at byte 4096"))
                // The filter suggests the codes failed jobs stored, not every code a worker knows.
                #expect(failures.body.contains("<option value=\"jpeg_corrupt\">"))
                #expect(!failures.body.contains("<option value=\"original_missing\">"))
                let none = try await browser.get("/failures?code=original_missing")
                #expect(!none.body.contains("id=\"job-\(fixture.failedJobID)\""))
                #expect(none.body.contains("No failures match this filter."))

                let asset = try await browser.get("/assets/\(fixture.assetID)")
                #expect(asset.body.contains("https://www.openstreetmap.org/?mlat=43.4674&amp;mlon=11.8851"))
                // Where the date came from, escaped as every word of the catalogue is.
                #expect(asset.body.contains("2009-09-03 17:46:40 UTC</time> (EXIF &lt;DateTimeOriginal&gt;)"))
                #expect(asset.body.contains("src=\"/assets/\(fixture.assetID)/original.jpg\""))
                let missing = try await browser.get("/assets/999999")
                #expect(missing.status == .notFound)
            }
        }
    }

    @Test func theFiltersPageShowsEachVersionAndTheAssetsWhoseChainUsesIt() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                let connection = try DatabaseConnection(fixture.url)
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.viewerName)
                let empty = try await browser.get("/filters")
                #expect(empty.status == .ok && empty.body.contains("No filters."))

                let catalog = FilterCatalog(connection)
                let old = String(repeating: "0123456789abcdef", count: 4)
                _ = try catalog.add(name: "dusk", version: "1.0.0", sha256: old, size: 1_234_567)
                _ = try catalog.add(
                    name: "dusk", version: "1.1.0", sha256: String(repeating: "fe", count: 32), size: 2_048)
                _ = try catalog.add(
                    name: "dusk", version: "2.0.0-rc.1", sha256: String(repeating: "aa", count: 32), size: 2_048)
                _ = try catalog.add(name: "noir", version: "1.0.0", sha256: String(repeating: "bb", count: 32), size: 9)
                // A second asset with an edit using dusk 1.0.0, rendered: its current chain uses it.
                let asset = try AssetStore(connection).register(
                    NewAsset(
                        originalPath: "originals/cd/" + String(repeating: "cd", count: 32) + ".jpg",
                        contentSHA256: String(repeating: "cd", count: 32), byteSize: 1, pixelWidth: 8, pixelHeight: 8,
                        orientation: 1, latitude: nil, longitude: nil)
                ).id
                let job = try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::text) AS id",
                    [.int(asset), .text(#"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"}]}"#)]
                )[0]["id"].decode(Int64.self)
                let queue = JobQueue(connection, logger: .quiet)
                let claimed = try #require(
                    try queue.claim(workerID: "test-worker", limit: 10, lease: .seconds(60)).first { $0.id == job })
                _ = try queue.complete(claimed, with: sampleAdjustment(for: claimed))

                let page = try await browser.get("/filters")
                #expect(page.status == .ok)
                #expect(page.body.contains("<a href=\"/filters\" aria-current=\"page\">Filters</a>"))
                let versions = try catalog.versions()
                #expect(versions.map(\.assets) == [0, 0, 1, 0], "\(versions)")
                for version in versions {
                    let start = try #require(
                        page.body.range(of: "<tr id=\"filter-\(version.name)@\(version.version)\">"),
                        "\(version.name) \(version.version)")
                    let rest = page.body[start.lowerBound...]
                    let row = String(rest[..<(rest.range(of: "</tr>")?.upperBound ?? rest.endIndex)])
                    #expect(row.contains("title=\"\(version.sha256)\">\(version.sha256.prefix(12))</span>"))
                    #expect(row.contains("<td class=\"num\">\(version.assets)</td></tr>"), "\(row)")
                    #expect(row.contains("(newest)") == version.isNewest, "\(row)")
                    #expect(row.contains("<td>\(version.addedBy)</td>"))
                }
                #expect(page.body.contains("<td class=\"num\">1.2 MiB</td>"))
                // Newest first, each filter under its own heading.
                let order = ["filter-dusk@2.0.0-rc.1", "filter-dusk@1.1.0", "filter-dusk@1.0.0", "filter-noir"]
                let positions = order.compactMap { page.body.range(of: "id=\"\($0)")?.lowerBound }
                #expect(positions.count == 4 && positions == positions.sorted())
                // The CLI reads the same view.
                #expect(versions.first { $0.version == "1.1.0" }?.isNewest == true)
            }
        }
    }

    @Test func thumbnailsAreUprightSmallJPEGsMadeOnceThenCached() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.viewerName)
                let image = try await browser.get("/assets/\(fixture.assetID)/original.jpg")
                #expect(image.status == .ok)
                #expect(image.headers[.contentType] == "image/jpeg")
                #expect(Array(image.bytes.prefix(2)) == [0xFF, 0xD8])
                let size = try #require(jpegSize(image.bytes))
                // Stored 450×600 with orientation 6: upright it is 600 wide, 450 high, and a
                // 480-pixel thumbnail decodes it at 7/8 (525×394 upright).
                #expect(size.width > size.height)
                #expect(max(size.width, size.height) >= 480 && max(size.width, size.height) <= 600)
                let cached = dashboard.thumbnails.cachedBytes
                #expect(cached == image.bytes.count)
                let again = try await browser.get("/assets/\(fixture.assetID)/original.jpg")
                #expect(again.bytes == image.bytes)
                #expect(dashboard.thumbnails.cachedBytes == cached)
                let noSuchLayer = try await browser.get("/assets/\(fixture.assetID)/adjustments/12345.jpg")
                #expect(noSuchLayer.status == .notFound)
            }
        }
    }

    @Test func operatorsActThroughTheSQLAPIAndViewersAndForgedFormsAreRefused() async throws {
        try await DashboardFixture.with { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                func state(_ job: Int64) throws -> String {
                    try fixture.query("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]["state"].decode(
                        String.self)
                }
                var viewer = Browser(client)
                _ = try await viewer.signIn(DashboardFixture.viewerName)
                let viewerPage = try await viewer.get("/failures")
                let refused = try await viewer.post(
                    "/jobs/\(fixture.failedJobID)/retry", [:], csrf: viewerPage.csrfToken)
                #expect(refused.status == .forbidden)
                #expect(try state(fixture.failedJobID) == "failed")

                var operatorBrowser = Browser(client)
                _ = try await operatorBrowser.signIn(DashboardFixture.operatorName)
                let page = try await operatorBrowser.get("/failures")
                #expect(page.body.contains("action=\"/jobs/\(fixture.failedJobID)/retry\""))
                let forged = try await operatorBrowser.post(
                    "/jobs/\(fixture.failedJobID)/retry", [:], csrf: viewerPage.csrfToken)
                #expect(forged.status == .forbidden, "another session's token is no token")
                let missing = try await operatorBrowser.post("/jobs/\(fixture.failedJobID)/retry", [:], csrf: nil)
                #expect(missing.status == .forbidden)
                #expect(try state(fixture.failedJobID) == "failed")

                let retried = try await operatorBrowser.post(
                    "/jobs/\(fixture.failedJobID)/retry", [:], csrf: page.csrfToken)
                #expect(retried.status == .seeOther)
                #expect(try state(fixture.failedJobID) == "queued")
                let after = try await operatorBrowser.get("/failures")
                #expect(after.body.contains("job \(fixture.failedJobID) queued again"))
                let shownOnce = try await operatorBrowser.get("/failures")
                #expect(!shownOnce.body.contains("queued again"))

                let cancelled = try await operatorBrowser.post("/batches/spring/cancel", [:], csrf: page.csrfToken)
                #expect(cancelled.status == .seeOther)
                #expect(try state(fixture.queuedJobID) == "cancelled")
                #expect(try state(fixture.failedJobID) == "cancelled")
                let unknown = try await operatorBrowser.post("/batches/autumn/cancel", [:], csrf: page.csrfToken)
                #expect(unknown.status == .seeOther)
                let flash = try await operatorBrowser.get("/batches")
                #expect(flash.body.contains("there is no batch &#39;autumn&#39;"))

                let audit = try fixture.auditTrail().map {
                    "\($0.actor) \($0.action) \($0.target ?? "-"): \($0.result)"
                }
                #expect(audit.contains("victor retry-job job \(fixture.failedJobID): refused: viewers cannot act"))
                #expect(
                    audit.contains("olga retry-job job \(fixture.failedJobID): job \(fixture.failedJobID) queued again")
                )
                #expect(audit.contains("olga cancel-batch batch spring: 2 job(s) of batch spring cancelled"))
                #expect(audit.contains { $0.hasPrefix("olga cancel-batch batch autumn: refused: there is no batch") })
            }
        }
    }

    /// Logged in to PostgreSQL as a member of the viewer role only, serve shows every page, the
    /// asset page too (its chain through `asset_chain`, its records through the views), and an
    /// operator account's action is refused by the database: the login can read and not write.
    @Test func aViewerLoginRendersTheAssetPageAndCannotWrite() async throws {
        let login = DashboardFixture.viewerLogin("looker")
        try await DashboardFixture.with(login: login) { fixture, dashboard in
            // A layer on the asset: the queued job, claimed and completed as a worker would.
            let queue = JobQueue(try DatabaseConnection(fixture.url), logger: .quiet)
            let claimed = try #require(try queue.claim(workerID: "test-worker", limit: 1, lease: .seconds(60)).first)
            _ = try queue.complete(claimed, with: sampleAdjustment(for: claimed))
            let layer = try fixture.query(
                "SELECT current_adjustment_id AS id FROM darkroom.assets WHERE id = $1", [.int(fixture.assetID)])[0][
                    "id"
                ]
                .decode(Int64.self)
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.operatorName)
                for path in ["/", "/batches", "/batches/spring", "/batches/spring/sample", "/failures", "/filters"] {
                    let page = try await browser.get(path)
                    #expect(page.status == .ok, "\(path): \(page.status) \(page.body.suffix(300))")
                }
                let asset = try await browser.get("/assets/\(fixture.assetID)")
                #expect(asset.status == .ok, "\(asset.body.suffix(300))")
                #expect(
                    asset.body.contains("src=\"/assets/\(fixture.assetID)/adjustments/\(layer).jpg\""),
                    "the chain's layer")
                #expect(asset.body.contains("openstreetmap.org/?mlat=43.4674"), "the asset's record")
                let original = try await browser.get("/assets/\(fixture.assetID)/original.jpg")
                #expect(original.status == .ok && original.headers[.contentType] == "image/jpeg")

                let page = try await browser.get("/failures")
                let refused = try await browser.post("/jobs/\(fixture.failedJobID)/retry", [:], csrf: page.csrfToken)
                #expect(refused.status == .seeOther)
                let flash = try await browser.get("/failures")
                #expect(flash.body.contains("permission denied"), "\(flash.body.suffix(500))")
                #expect(
                    try fixture.query("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(fixture.failedJobID)])[0][
                        "state"
                    ]
                    .decode(String.self) == "failed")
            }
            // The login itself: it reads the records as AssetStore does and writes nothing.
            let viewer = try DatabaseConnection(
                try TestDatabase.url(fixture.url, as: TestDatabase.roleName("looker", forDatabaseAt: fixture.url)))
            #expect(try AssetStore(viewer).asset(id: fixture.assetID)?.currentAdjustmentID == layer)
            #expect(try AssetStore(viewer).currentChain(of: fixture.assetID).map(\.id) == [layer])
            for write in [
                "UPDATE darkroom.asset_records SET latitude = 0",
                "UPDATE darkroom.adjustment_records SET warnings = NULL",
                "DELETE FROM darkroom.adjustment_records", "UPDATE darkroom.assets SET latitude = 0",
                "SELECT darkroom.retry_job(\(fixture.failedJobID))",
                "SELECT * FROM darkroom.current_chains(ARRAY[1::bigint])",
            ] {
                #expect(throws: DatabaseError.self, "\(write)") { try viewer.execute(write) }
            }
        }
    }

    /// Logged in to PostgreSQL as a member of the operator role (reads through views, acts
    /// through the API), the worker role (reads the catalogue the way a worker does) and the
    /// serve role (keeps the sessions), the pages work and each action lands in
    /// darkroom.audit_trail under the signed-in account.
    @Test func underTheDatabaseRolesActionsAreAuditedByTheDatabaseWithTheAccountAsActor() async throws {
        let login = { (url: String) throws -> String in
            let roles = TestDatabase.accessRoles(forDatabaseAt: url)
            let name = TestDatabase.roleName("dashboard", forDatabaseAt: url)
            let owner = try DatabaseConnection(url)
            try owner.execute(
                "CREATE ROLE \(try owner.quotedIdentifier(name)) LOGIN IN ROLE \(try owner.quotedIdentifier(roles.operatorRole!)), \(try owner.quotedIdentifier(roles.worker!)), \(try owner.quotedIdentifier(roles.serve!))"
            )
            return try TestDatabase.url(url, as: name)
        }
        try await DashboardFixture.with(login: login) { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.operatorName)
                for path in [
                    "/", "/batches", "/batches/spring", "/batches/spring/sample", "/failures?code=jpeg_corrupt",
                    "/assets/\(fixture.assetID)",
                ] {
                    let page = try await browser.get(path)
                    #expect(page.status == .ok, "\(path): \(page.status) \(page.body.suffix(300))")
                }
                let page = try await browser.get("/failures")
                let retried = try await browser.post("/jobs/\(fixture.failedJobID)/retry", [:], csrf: page.csrfToken)
                #expect(retried.status == .seeOther)
                let entry = try #require(try AuditTrail(DatabaseConnection(fixture.url)).recent(limit: 1).first)
                #expect(entry.action == "retry_job")
                #expect(entry.actor == DashboardFixture.operatorName)
                #expect(entry.databaseUser == TestDatabase.roleName("dashboard", forDatabaseAt: fixture.url))
            }
        }
    }

    @Test func behindTLSTheCookieIsSecure() async throws {
        try await DashboardFixture.with(secureCookies: true) { _, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                let cookie = try #require(try await browser.get("/sign-in").headers[.setCookie])
                #expect(
                    cookie.hasPrefix("__Host-darkroom_sign_in=") && cookie.contains("Path=/"),
                    "no sibling host may set it")
                #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
                let signedIn = try await browser.signIn(DashboardFixture.viewerName)
                let session = try #require(
                    signedIn.headers[values: .setCookie].first { $0.hasPrefix(Dashboard.sessionCookie + "=") })
                #expect(
                    session.contains("Secure") && session.contains("HttpOnly") && session.contains("SameSite=Strict"))
            }
        }
    }

    @Test func withoutAccountsEveryoneIsTheLocalOperatorButFormsStillNeedTheToken() async throws {
        try await DashboardFixture.with(accounts: false) { fixture, dashboard in
            try await Self.app(dashboard).test(.router) { client in
                var browser = Browser(client)
                let overview = try await browser.get("/")
                #expect(overview.status == .ok)
                #expect(overview.body.contains("local · operator"))
                let forged = try await browser.post("/jobs/\(fixture.failedJobID)/retry", [:], csrf: "nope")
                #expect(forged.status == .forbidden)
                let retried = try await browser.post(
                    "/jobs/\(fixture.failedJobID)/retry", [:], csrf: overview.csrfToken)
                #expect(retried.status == .seeOther)
            }
        }
    }
}

/// Width and height from a JPEG's first SOF segment.
func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    var index = 2
    while index + 9 < bytes.count, bytes[index] == 0xFF {
        let marker = bytes[index + 1]
        let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
        if (0xC0...0xC2).contains(marker) {
            return (
                Int(bytes[index + 7]) << 8 | Int(bytes[index + 8]), Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
            )
        }
        index += 2 + length
    }
    return nil
}
