import DarkroomDatabase
import DarkroomMetrics
import DarkroomTestSupport
import DarkroomWeb
import Foundation
import Hummingbird
import LibPQ
import Testing

/// serve's `/metrics`: open to Prometheus without a session, the queue's gauges read through the
/// dashboard's pool from the views the pages read, by a login that may only read views.
@Suite struct DashboardMetricsTests {
    @Test func metricsNeedNoSessionAndEqualTheViews() async throws {
        let viewer = DashboardFixture.viewerLogin("metrics")
        try await DashboardFixture.with(login: viewer) { fixture, dashboard in
            try await Application(router: dashboard.router(sessions: MemoryPersistDriver())).test(.router) { client in
                let answer = try await client.execute(uri: "/metrics", method: .get)
                #expect(answer.status == .ok)
                #expect(answer.headers[.contentType] == PrometheusText.contentType)
                #expect(answer.headers[.setCookie] == nil, "a scrape starts no session")
                let scrape = try PrometheusScrape(parsing: String(buffer: answer.body))
                for view in QueueMetrics.views {
                    #expect(scrape.value("darkroom_queue_view_up", ["view": view]) == 1, "\(view)")
                }
                for row in try fixture.query("SELECT state, count FROM darkroom.queue_summary") {
                    #expect(
                        scrape.value("darkroom_queue_jobs", ["state": try row["state"].decode(String.self)])
                            == Double(try row["count"].decode(Int.self)))
                }
                // The fixture's batch: one job failed, one queued.
                #expect(scrape.value("darkroom_batch_jobs", ["batch": "spring", "state": "failed"]) == 1)
                #expect(scrape.value("darkroom_batch_jobs", ["batch": "spring", "state": "queued"]) == 1)

                let page = try await client.execute(uri: "/", method: .get)
                #expect(page.status == .seeOther, "the pages still need a session")
            }
        }
    }
}
