import DarkroomDatabase
import DarkroomTestSupport
import DarkroomWeb
import Foundation
import Hummingbird
import LibPQ
import Testing

/// Batch names are the operators' own words: any name the SQL API accepts is linked, opens and
/// is acted on from every page (issue 19: `spring 2026` was linked as /batches/spring%202026,
/// which answered 404).
@Suite struct BatchNameRouteTests {
    @Test(arguments: ["spring 2026", "été-2026", "a/b", #"<b>x</b>&"'"#])
    func aBatchOpensAndActsFromItsLinksWhateverItsName(_ name: String) async throws {
        try await DashboardFixture.with { fixture, dashboard in
            let queue = JobQueue(try DatabaseConnection(fixture.url), logger: .quiet)
            // Out of the way, so the claim below takes this batch's job.
            #expect(try queue.cancel(jobID: fixture.queuedJobID))
            let failed = try queue.enqueue(
                assetID: fixture.assetID, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[{"op":"sepia"}]}"#.utf8), batch: name)
            let claimed = try queue.claim(workerID: "test-worker", limit: 1, lease: .seconds(60))
            try #require(claimed.count == 1)
            _ = try queue.fail(claimed[0], .permanent(code: "jpeg_corrupt", message: "damaged"), retryDelay: .zero)
            let queued = try queue.enqueue(
                assetID: fixture.assetID, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[{"op":"vignette"}]}"#.utf8), batch: name)

            try await DashboardRouteTests.app(dashboard).test(.router) { client in
                func state(_ job: Int64) throws -> String {
                    try fixture.query("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(job)])[0]["state"].decode(
                        String.self)
                }
                #expect(try state(failed) == "failed")
                var browser = Browser(client)
                _ = try await browser.signIn(DashboardFixture.operatorName)
                let shown = HTML.escape(name)
                let list = try await browser.get("/batches")
                let link = try #require(list.body.href(ofLinkTo: shown), "no link to \(shown) in /batches")
                #expect(link.hasPrefix("/batches/"))
                #expect(!link.dropFirst("/batches/".count).contains("/"), "one path segment: \(link)")
                #expect(link.unicodeScalars.allSatisfy { $0.isASCII && $0 != " " }, "encoded: \(link)")

                let page = try await browser.get(link)
                #expect(page.status == .ok, "\(link)")
                #expect(page.body.contains("<h1>Batch \(shown)</h1>"))

                #expect(page.body.contains("href=\"\(link)/sample\""))
                let sample = try await browser.get(link + "/sample")
                #expect(sample.status == .ok, "\(link)/sample")
                #expect(sample.body.contains("<a href=\"\(link)\">\(shown)</a>: before and after"))

                // The failures of this batch, through the page's link, link back to it.
                let filter = try #require(page.body.href(startingWith: "/failures?batch="))
                let failures = try await browser.get(filter.replacingOccurrences(of: "&amp;", with: "&"))
                #expect(failures.status == .ok)
                #expect(failures.body.contains("<td>job \(failed)</td>"))
                #expect(failures.body.href(ofLinkTo: shown) == link)

                // The page's forms act on this batch and lead back to its page.
                browser.referer = "http://localhost" + link
                #expect(page.body.contains("action=\"\(link)/retry\""))
                let retried = try await browser.post(link + "/retry", [:], csrf: page.csrfToken)
                #expect(retried.status == .seeOther)
                #expect(retried.headers[.location] == link)
                #expect(try state(failed) == "queued")
                let afterRetry = try await browser.get(link)
                #expect(afterRetry.body.contains("1 job(s) of batch \(shown) queued again"))

                #expect(afterRetry.body.contains("action=\"\(link)/cancel\""))
                let cancelled = try await browser.post(link + "/cancel", [:], csrf: afterRetry.csrfToken)
                #expect(cancelled.status == .seeOther)
                #expect(cancelled.headers[.location] == link)
                #expect(try state(failed) == "cancelled")
                #expect(try state(queued) == "cancelled")
                let afterCancel = try await browser.get(link)
                #expect(afterCancel.body.contains("2 job(s) of batch \(shown) cancelled"))

                let audit = try fixture.auditTrail().map {
                    "\($0.actor) \($0.action) \($0.target ?? "-"): \($0.result)"
                }
                #expect(audit.contains("olga cancel-batch batch \(name): 2 job(s) of batch \(name) cancelled"))
            }
        }
    }
}

extension String {
    /// The `href` of the first link whose text is `text` (as the page writes it, escaped).
    fileprivate func href(ofLinkTo text: String) -> String? {
        guard let end = range(of: "\">\(text)</a>") else { return nil }
        guard let start = self[..<end.lowerBound].range(of: "href=\"", options: .backwards) else { return nil }
        return String(self[start.upperBound..<end.lowerBound])
    }

    /// The first `href` value that starts with `prefix`.
    fileprivate func href(startingWith prefix: String) -> String? {
        guard let start = range(of: "href=\"\(prefix)") else { return nil }
        let rest = self[start.upperBound...]
        return rest.firstIndex(of: "\"").map { prefix + rest[..<$0] }
    }
}
