import DarkroomDatabase
import DarkroomImaging
import DarkroomImport
import DarkroomMetrics
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWorker
import Foundation
import LibPQ
import Logging
import MetricsTestKit
import Testing

/// A worker's budget is the worker's, shared by its slots: real photos through import, the
/// queue, a two-slot worker and a real PostgreSQL, with a budget that fits one of the two jobs
/// but not both at once.
@Suite(.serialized) struct MemoryBudgetJobTests {
    static let edit = #"{"operations":[{"op":"sepia"}]}"#
    static let wide = Fixtures.root.appendingPathComponent("corpus/libvips/ultra-hdr.jpg").path  // 3840×2160
    static let tall = Fixtures.exifSample("hdr/iphone_hdr_NO.jpg").path  // 3264×2448
    static let huge = Fixtures.root.appendingPathComponent("corpus/pillow_heif/200MP.heic").path  // 12240×16320

    /// What the worker's render of `path` asks its admission for at `budget`: planned as the
    /// worker plans it (the display copy, a local storage, no gain map: the worker drops them).
    static func price(of path: String, budget: Int) throws -> Int {
        var render = FileRender(
            inputPath: path, outputPath: NSTemporaryDirectory() + "unused.jpg",
            formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: Array(edit.utf8),
            settings: RenderSettings(memoryBudget: budget))
        render.renditionPaths = [NSTemporaryDirectory() + "unused.display.jpg"]
        return RenderPlanner.admissionPrice(try render.plan(), gainMap: nil)
    }

    /// The budget `path`'s render needs at least (its smallest strips), from the planner's refusal.
    static func needed(by path: String, budget: Int) throws -> Int {
        do {
            let price = try price(of: path, budget: budget)
            Issue.record("\(path) fits \(budget) bytes: its price is \(price)")
            return price
        } catch let error as RenderError where error.code == .memoryBudgetExceeded {
            return try #require(error.bytesNeeded)
        }
    }

    @Test func twoJobsThatFitOnlyOneAtATimeTakeTurnsAndOneLargerThanTheBudgetFails() throws {
        // Budget: a quarter above what the wider photo needs at least; then each of the two
        // jobs' prices is more than the budget leaves beside the other's.
        let budget = try Self.needed(by: Self.wide, budget: 1) * 5 / 4
        let prices = [try Self.price(of: Self.wide, budget: budget), try Self.price(of: Self.tall, budget: budget)]
        try #require(prices.allSatisfy { $0 <= budget }, "each fits alone: \(prices) of \(budget)")
        try #require(prices[0] + prices[1] > budget, "not both at once: \(prices) of \(budget)")
        let hugeNeeds = try Self.needed(by: Self.huge, budget: budget)
        try #require(hugeNeeds > budget)

        try TestDatabase.withFreshDatabase { url in
            let root = NSTemporaryDirectory() + "darkroom-budget-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: root) }
            let storage = try StorageRoot.create(root)
            let connection = try DatabaseConnection(url)
            try Migrator.forTestDatabase(url).migrate(on: connection, logger: .quiet)
            let importer = Importer(storage: storage, connection: connection, logger: .quiet)
            var jobs: [Int64] = []
            for path in [Self.wide, Self.tall, Self.huge] {
                let asset = try importer.importFile(path).assetID
                jobs.append(
                    try connection.query(
                        "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::jsonb) AS id",
                        [.int(asset), .text(Self.edit)])[0]["id"].decode(Int64.self))
            }

            let metrics = TestMetrics()
            var options = WorkerOptions(
                databaseURL: url, storage: storage, concurrency: 2, drain: true, memoryBudget: budget,
                workerName: "budget-test", metrics: WorkerMetrics(factory: metrics))
            options.hdr = .drop
            let summary = Worker(options: options, logger: .quiet).run()
            #expect(summary.succeeded == 2 && summary.failed == 1, "\(summary)")

            let rows = try connection.query(
                "SELECT id, state, attempts, last_error FROM darkroom.jobs WHERE id = ANY($1::bigint[]) ORDER BY id",
                [.text("{" + jobs.map(String.init).joined(separator: ",") + "}")])
            let states = try rows.map { try $0["state"].decode(String.self) }
            #expect(states == ["succeeded", "succeeded", "failed"])
            // Refused at once, for good, naming the budget it needs.
            #expect(try rows[2]["attempts"].decode(Int.self) == 1)
            let error = try #require(rows[2]["last_error"].string)
            #expect(error.hasPrefix("memory_budget_exceeded: "), "\(error)")
            #expect(error.contains("raise --memory-budget to at least \(ByteCount.format(hugeNeeds))"), "\(error)")

            // Each render reserved its price alone: never both at once, never over the budget.
            let reserved = try metrics.expectGauge(DarkroomMetric.memoryReserved.name).values.map { Int($0) }
            #expect(Set(reserved).isSubset(of: [0] + prices), "\(reserved) with prices \(prices)")
            #expect(Set(reserved.filter { $0 > 0 }) == Set(prices), "both jobs reserved their price: \(reserved)")
            #expect(reserved.last == 0, "every reservation was given back")
            #expect(try metrics.expectGauge(DarkroomMetric.jobsWaitingForMemory.name).lastValue == 0)
        }
    }

    /// A running worker's heartbeat carries its memory in use and jobs waiting for memory;
    /// `darkroom status` shows them beside what it renders.
    @Test func statusShowsEachWorkersMemory() throws {
        try TestDatabase.withFreshDatabase { url in
            let storage = NSTemporaryDirectory() + "darkroom-budget-status-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: storage) }
            _ = try StorageRoot.create(storage)
            let command = DarkroomCommand(databaseURL: url, storage: storage)
            let migrate = try command.run("migrate")
            try #require(migrate.status == 0, "migrate: \(migrate.stderr)")
            let worker = try RunningCommand(
                command, ["worker", "--concurrency", "2", "--memory-budget", "64MiB", "--poll-interval", "1"])
            var status = try command.run("status").stdout
            let deadline = Date().addingTimeInterval(60)
            while !status.contains("waiting for memory"), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.2)
                status = try command.run("status").stdout
            }
            #expect(status.contains("idle; memory 0 B in use, 0 job(s) waiting for memory"), "\(status)")
            #expect(worker.terminate() == 0, "\(worker.output)")
        }
    }
}
