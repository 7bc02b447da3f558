import DarkroomDatabase
import DarkroomImport
import DarkroomMetrics
import DarkroomMetricsEndpoint
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import Prometheus
import ServiceLifecycle
import Testing

/// A worker drains real jobs (real renders, a real PostgreSQL) with its metrics listener on a
/// loopback port; a real HTTP scrape shows each counter and histogram moved by exactly what
/// happened, with the right labels.
@Suite(.serialized) struct WorkerMetricsTests {
    static let budget = 64 << 20
    static let concurrency = 2

    @Test func aScrapeAfterADrainCountsWhatTheWorkerDid() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-metrics-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root)
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            let importer = Importer(storage: storage, connection: connection, logger: .quiet)
            let good = [
                try importer.importFile(Fixtures.exifSample("gps/DSCN0010.jpg").path).assetID,
                try importer.importFile(Fixtures.root.appendingPathComponent("gainmaps/apple_gainmap_new.jpg").path)
                    .assetID,
            ]
            // A cut original: import reads only the header; the render finds the damage.
            let intact = try Data(contentsOf: Fixtures.exifSample("gps/DSCN0012.jpg"))
            let cutPath = root + "-cut.jpg"
            try intact.prefix(intact.count / 2).write(to: URL(fileURLWithPath: cutPath))
            defer { try? FileManager.default.removeItem(atPath: cutPath) }
            let cut = try importer.importFile(cutPath).assetID
            for asset in good + [cut] {
                _ = try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb)",
                    [.int(asset), .text(#"{"operations":[{"op":"sepia"},{"op":"vignette"}]}"#)])
            }

            let registry = PrometheusCollectorRegistry()
            var options = WorkerOptions(
                databaseURL: url, storage: storage, concurrency: Self.concurrency, drain: true,
                memoryBudget: Self.budget, workerName: "metrics-test",
                metrics: WorkerMetrics(factory: DarkroomMetricsFactory(registry: registry)))
            // As a worker runs by default: each render in a decoding child.
            options.sandbox = DecoderSandbox(executable: DarkroomCommand.executable.path)
            let (summary, scrape, health) = try await withServer(
                { onListening in
                    let server = MetricsServer.service(
                        listeningOn: ListenAddress("127.0.0.1:0")!, registry: registry, logger: .quiet,
                        onListening: onListening)
                    return { try await server.run() }
                },
                then: { port in
                    let summary = await Self.run(Worker(options: options, logger: .quiet))
                    let answer = try await httpGet("http://127.0.0.1:\(port)/metrics")
                    #expect(answer.status == 200 && answer.contentType == PrometheusText.contentType)
                    return (
                        summary, try PrometheusScrape(parsing: answer.body),
                        try await httpGet("http://127.0.0.1:\(port)/healthz")
                    )
                })
            #expect(summary.succeeded == 2 && summary.failed == 1, "\(summary)")
            #expect(health.status == 200 && health.body == "ok\n")

            // Outcomes, by code.
            #expect(scrape.value("darkroom_worker_jobs_total", ["outcome": "succeeded", "code": ""]) == 2)
            #expect(scrape.value("darkroom_worker_jobs_total", ["outcome": "failed", "code": "jpeg_damaged"]) == 1)
            #expect(
                scrape.samples(named: "darkroom_worker_jobs_total").count == 2,
                "no other outcome: \(scrape.samples(named: "darkroom_worker_jobs_total"))")

            // Latency histograms: one observation per render and per claim.
            #expect(
                scrape.value("darkroom_worker_render_duration_seconds_count", ["kind": "edit", "result": "rendered"])
                    == 2)
            #expect(
                scrape.value("darkroom_worker_render_duration_seconds_count", ["kind": "edit", "result": "failed"]) == 1
            )
            #expect(
                try #require(
                    scrape.value("darkroom_worker_render_duration_seconds_sum", ["kind": "edit", "result": "rendered"]))
                    > 0)
            #expect(scrape.value("darkroom_worker_claim_duration_seconds_count", ["result": "claimed"]) == 3)
            #expect(
                try #require(scrape.value("darkroom_worker_claim_duration_seconds_count", ["result": "empty"])) >= 1,
                "a draining worker stops after an empty claim")

            // Bytes: every original read to its end (the damaged one too), and the gain-map JPEG
            // read a second time to reach its map; every output published.
            let originals = try connection.query("SELECT original_path FROM darkroom.assets ORDER BY id").map {
                try Self.size(of: try storage.resolve(try $0["original_path"].decode(String.self)))
            }
            #expect(
                scrape.value("darkroom_worker_read_bytes_total", ["object": "original"])
                    == Double(originals.reduce(0, +) + originals[1]))
            let renders = try connection.query("SELECT rendered_path, rendered_bytes FROM darkroom.adjustments")
            #expect(renders.count == 2)
            let written = try renders.reduce(0) { $0 + (try $1["rendered_bytes"].decode(Int.self)) }
            let displays = try renders.reduce(0) { total, row in
                let path = try row["rendered_path"].decode(String.self)
                return total
                    + (try Self.size(of: try storage.resolve(String(path.dropLast(".jpg".count)) + ".display.jpg")))
            }
            #expect(scrape.value("darkroom_worker_written_bytes_total", ["object": "render"]) == Double(written))
            #expect(scrape.value("darkroom_worker_written_bytes_total", ["object": "renditions"]) == Double(displays))

            // Memory: each render planned against the whole budget, which the slots share; nothing
            // reserved or waiting once drained.
            let budget = Double(Self.budget)
            #expect(scrape.value("darkroom_worker_render_memory_budget_bytes") == budget)
            let peak = try #require(scrape.value("darkroom_worker_render_memory_peak_bytes"))
            #expect(peak > 0 && peak <= budget)
            #expect(scrape.value("darkroom_worker_memory_reserved_bytes") == 0)
            #expect(scrape.value("darkroom_worker_memory_waiting_jobs") == 0)
            #expect(scrape.value("darkroom_worker_render_memory_budget_ratio_count") == 2)
            // The children's own peak: a render's memory and a child's fixed cost.
            let resident = try #require(scrape.value("darkroom_worker_decoder_resident_peak_bytes"))
            #expect(resident > Double(8 << 20) && resident < budget + Double(512 << 20), "\(resident)")
            #expect(try #require(scrape.value("darkroom_worker_render_memory_budget_ratio_bucket", ["le": "1.0"])) == 2)

            // Nothing in hand once drained.
            #expect(scrape.value("darkroom_worker_jobs_in_hand") == 0)
            #expect(scrape.value("darkroom_worker_slots") == Double(Self.concurrency))

            for metric in DarkroomMetric.worker {
                #expect(scrape.types[metric.name] == metric.kind.rawValue, "\(metric.name)")
                #expect(scrape.helps[metric.name] == metric.help, "\(metric.name)")
            }
        }
    }

    /// The executable bootstraps swift-metrics and serves what its worker records until it is
    /// stopped; a port it cannot listen on stops it with exit 2 and says which.
    @Test func theWorkerCommandServesItsMetricsUntilStopped() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-metrics-cli-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: storage) }
            _ = try StorageRoot.create(storage)
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            let migrate = try command.run("migrate")
            try #require(migrate.status == 0, "migrate: \(migrate.stderr)")
            let worker = try RunningCommand(
                command, ["worker", "--concurrency", "3", "--poll-interval", "1", "--metrics-listen", "127.0.0.1:0"])
            let announced = try #require(worker.line(containing: "metrics at http://127.0.0.1:"), "\(worker.output)")
            let match = try #require(announced.firstMatch(of: /127\.0\.0\.1:([0-9]+)\/metrics/))
            let port = try #require(Int(match.1))

            let answer = try await httpGet("http://127.0.0.1:\(port)/metrics")
            #expect(answer.status == 200)
            let scrape = try PrometheusScrape(parsing: answer.body)
            // Recorded by the library through swift-metrics: the executable bootstrapped it.
            #expect(scrape.value("darkroom_worker_slots") == 3)
            #expect(scrape.value("darkroom_worker_jobs_in_hand") == 0)

            let second = try RunningCommand(command, ["worker", "--metrics-listen", "127.0.0.1:\(port)"])
            #expect(second.waitForExit() == 2)
            #expect(
                second.output.contains("cannot serve metrics on 127.0.0.1:\(port) (--metrics-listen)"),
                "\(second.output)")

            #expect(worker.terminate() == 0, "\(worker.output)")
        }
    }

    /// The worker blocks its threads on libpq: run it off the cooperative pool.
    static func run(_ worker: Worker) async -> WorkerSummary {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: worker.run()) }.start()
        }
    }

    static func size(of path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue)
    }
}
