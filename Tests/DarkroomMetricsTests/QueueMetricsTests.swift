import DarkroomDatabase
import DarkroomMetrics
import DarkroomMetricsEndpoint
import DarkroomTestSupport
import Foundation
import Hummingbird
import LibPQ
import Logging
import Prometheus
import ServiceLifecycle
import Testing

/// The queue's gauges, scraped over real HTTP from a server reading a real PostgreSQL, equal
/// what the views say; a view that cannot be read is reported, not fatal to the scrape.
@Suite struct QueueMetricsTests {
    /// Shaped like serve's `DatabasePool`: runs `body` with a connection on a thread of its own
    /// (libpq blocks), here a new connection each time.
    struct Pool: Sendable {
        let url: String

        func withConnection<T: Sendable>(_ body: @escaping @Sendable (DatabaseConnection) throws -> T) async throws -> T
        {
            try await withCheckedThrowingContinuation { continuation in
                Thread { continuation.resume(with: Result { try body(try DatabaseConnection(url)) }) }.start()
            }
        }
    }

    static func reading(_ url: String) -> MetricsDatabaseRead {
        let pool = Pool(url: url)
        return { read in try await pool.withConnection(read) }
    }

    static func scrape(
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), database: MetricsDatabaseRead?
    )
        async throws -> (HTTPAnswer, PrometheusScrape)
    {
        try await withServer(
            { onListening in
                let server = MetricsServer.service(
                    listeningOn: ListenAddress("127.0.0.1:0")!, registry: registry, database: database,
                    logger: .quiet, onListening: onListening)
                return { try await server.run() }
            },
            then: { port in
                let answer = try await httpGet("http://127.0.0.1:\(port)/metrics")
                return (answer, try PrometheusScrape(parsing: answer.body))
            })
    }

    /// Two batches and a job outside any, some claimed, one finished, one worker heartbeating.
    static func fillQueue(_ connection: DatabaseConnection) throws {
        let queue = JobQueue(connection, logger: .quiet)
        for (seed, batch) in [(1, "spring"), (2, "spring"), (3, "spring"), (4, "autumn"), (5, "autumn"), (6, nil)] {
            let asset = try registerAsset(seed, on: connection)
            _ = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: sampleData,
                batch: batch)
        }
        let claimed = try queue.claim(workerID: "metrics-test/0", limit: 2, lease: .seconds(60))
        _ = try queue.complete(claimed[0], with: sampleAdjustment(for: claimed[0]))
        // A worker with no editors: every queued edit waits for one (darkroom.waiting_for_editor).
        // A long lease: on a loaded machine the scrape may come minutes after this heartbeat.
        _ = try queue.heartbeat(
            WorkerIdentity(name: "metrics-test", host: "localhost", pid: 1), lease: .seconds(3600),
            jobs: [claimed[1]], formats: [])
    }

    @Test func depthGaugesEqualTheViews() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            try Self.fillQueue(connection)

            let filled = ContinuousClock.now
            let (answer, scrape) = try await Self.scrape(database: Self.reading(url))
            #expect(answer.status == 200)
            #expect(answer.contentType == PrometheusText.contentType)

            var total = 0.0
            for row in try connection.query("SELECT state, count FROM darkroom.queue_summary") {
                let count = try #require(
                    scrape.value("darkroom_queue_jobs", ["state": try row["state"].decode(String.self)]))
                #expect(count == Double(try row["count"].decode(Int.self)))
                total += count
            }
            #expect(total == 6)
            #expect(scrape.value("darkroom_queue_jobs", ["state": "succeeded"]) == 1)
            #expect(scrape.value("darkroom_queue_jobs", ["state": "running"]) == 1)

            let batches = try connection.query("SELECT * FROM darkroom.batch_summary ORDER BY batch")
            #expect(batches.count == 2)
            for row in batches {
                let batch = try row["batch"].decode(String.self)
                var sum = 0.0
                for state in ["queued", "running", "succeeded", "failed", "cancelled"] {
                    let value = try #require(scrape.value("darkroom_batch_jobs", ["batch": batch, "state": state]))
                    #expect(value == Double(try row[state].decode(Int.self)), "\(batch) \(state)")
                    sum += value
                }
                #expect(sum == Double(try row["total"].decode(Int.self)))
                #expect(sum == (batch == "spring" ? 3 : 2))
            }

            let age = try connection.query("SELECT age_seconds::double precision AS age FROM darkroom.oldest_queued")[
                0]["age"]
                .decode(Double.self)
            let scrapedAge = try #require(scrape.value("darkroom_queue_oldest_queued_age_seconds"))
            // The scrape and this query read the clock at different moments: allow the time since the fill.
            let slack = 30 + Double((ContinuousClock.now - filled).components.seconds)
            #expect(scrapedAge >= 0 && abs(scrapedAge - age) < slack)

            #expect(scrape.value("darkroom_fleet_workers", ["status": "alive"]) == 1)
            #expect(scrape.value("darkroom_fleet_workers", ["status": "silent"]) == 0)
            #expect(
                try #require(scrape.value("darkroom_fleet_heartbeat_age_seconds", ["worker": "metrics-test"])) < slack)

            let waiting = try connection.query(
                "SELECT kind, format_identifier, format_version, jobs FROM darkroom.waiting_for_editor")
            #expect(!waiting.isEmpty)
            for row in waiting {
                let labels = [
                    "kind": try row["kind"].decode(String.self),
                    "format_identifier": try row["format_identifier"].decode(String?.self) ?? "",
                    "format_version": try row["format_version"].decode(String?.self) ?? "",
                ]
                #expect(
                    scrape.value("darkroom_queue_waiting_for_editor_jobs", labels)
                        == Double(try row["jobs"].decode(Int.self)))
            }

            for view in QueueMetrics.views {
                #expect(scrape.value("darkroom_queue_view_up", ["view": view]) == 1, "\(view)")
            }
            for metric in DarkroomMetric.queue {
                #expect(scrape.types[metric.name] == "gauge", "\(metric.name)")
                #expect(scrape.helps[metric.name] == metric.help, "\(metric.name)")
            }
        }
    }

    /// Only batches with work left are exposed: a finished batch's series go away.
    @Test func finishedBatchesLeaveNoSeries() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            let queue = JobQueue(connection, logger: .quiet)
            let asset = try registerAsset(1, on: connection)
            let job = try queue.enqueue(
                assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: sampleData,
                batch: "done-soon")
            #expect(try queue.cancel(jobID: job))
            let metrics = QueueMetrics.read(from: connection)
            #expect(metrics.batches == [])
            let scrape = try PrometheusScrape(parsing: metrics.exposition)
            #expect(scrape.samples(named: "darkroom_batch_jobs").isEmpty)
            #expect(scrape.value("darkroom_queue_jobs", ["state": "cancelled"]) == 1)
            #expect(scrape.value("darkroom_queue_oldest_queued_age_seconds") == 0)
        }
    }

    /// A view blocked behind a lock times out within its budget: it reports 0 and leaves out
    /// its gauges; the views that could be read are still there.
    @Test func aBlockedViewTimesOutAndTheOthersStillAnswer() throws {
        try TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            try Self.fillQueue(connection)
            let locker = try DatabaseConnection(url)
            try locker.execute("BEGIN; LOCK TABLE darkroom.workers IN ACCESS EXCLUSIVE MODE")

            let metrics = QueueMetrics.read(from: try DatabaseConnection(url), timeout: .milliseconds(200))
            try locker.execute("ROLLBACK")

            #expect(metrics.workers == nil)
            #expect(metrics.failures["worker_status"]?.contains("statement timeout") == true, "\(metrics.failures)")
            let scrape = try PrometheusScrape(parsing: metrics.exposition)
            #expect(scrape.value("darkroom_queue_view_up", ["view": "worker_status"]) == 0)
            #expect(scrape.samples(named: "darkroom_fleet_workers").isEmpty)
            #expect(scrape.value("darkroom_queue_view_up", ["view": "queue_summary"]) == 1)
            #expect(scrape.value("darkroom_queue_jobs", ["state": "queued"]) == 4)
        }
    }

    /// No database at all: the scrape still answers 200 with this process's metrics and every
    /// view down, so an alert can tell "serve is up, PostgreSQL is not" from "serve is down".
    @Test func anUnreachableDatabaseStillScrapes() async throws {
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(
            descriptor: MetricNameDescriptor(metricName: "darkroom_test_marker_total", unitName: "", helpText: "")
        ).increment()
        let (answer, scrape) = try await Self.scrape(
            registry: registry, database: Self.reading("postgresql://127.0.0.1:1/nothing"))
        #expect(answer.status == 200)
        #expect(scrape.value("darkroom_test_marker_total") == 1)
        for view in QueueMetrics.views {
            #expect(scrape.value("darkroom_queue_view_up", ["view": view]) == 0, "\(view)")
        }
        #expect(scrape.samples(named: "darkroom_queue_jobs").isEmpty)
    }

    /// serve's mount: `/metrics` added before the sign-in middleware answers without a session,
    /// while every route added after it is refused.
    @Test func mountedBeforeTheSignInGateMetricsNeedNoSession() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            let pool = Pool(url: url)
            let router = Router()
            router.addMetrics(database: { read in try await pool.withConnection(read) })
            router.add(middleware: RefuseEveryone())
            router.get("/overview") { _, _ in "secret" }
            let (metrics, overview) = try await withServer(
                { onListening in
                    let app = Application(
                        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                        onServerRunning: { await onListening($0.localAddress?.port ?? 0) }, logger: .quiet)
                    return { try await app.run() }
                },
                then: { port in
                    (
                        try await httpGet("http://127.0.0.1:\(port)/metrics"),
                        try await httpGet("http://127.0.0.1:\(port)/overview")
                    )
                })
            #expect(overview.status == 403)
            #expect(metrics.status == 200)
            #expect(
                try PrometheusScrape(parsing: metrics.body).value("darkroom_queue_view_up", ["view": "queue_summary"])
                    == 1)
        }
    }

    /// Stands in for serve's sign-in gate: nobody is signed in.
    struct RefuseEveryone: RouterMiddleware {
        typealias Context = BasicRequestContext
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
            async throws -> Response
        {
            Response(status: .forbidden)
        }
    }

    @Test func theHealthCheckAnswers() async throws {
        let answer = try await withServer(
            { onListening in
                let server = MetricsServer.service(
                    listeningOn: ListenAddress("127.0.0.1:0")!, logger: .quiet, onListening: onListening)
                return { try await server.run() }
            }, then: { port in try await httpGet("http://127.0.0.1:\(port)/healthz") })
        #expect(answer.status == 200 && answer.body == "ok\n")
    }
}
