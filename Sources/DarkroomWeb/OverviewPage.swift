import DarkroomDatabase
import DarkroomImaging
import Foundation
import Logging

/// `/`: jobs by state, the last hour, the oldest queued job, the workers and what each
/// renders, and the jobs waiting for a newer editor. Each from the view `darkroom status` reads.
struct OverviewPage {
    struct Data: Sendable {
        var status: QueueStatus
        var throughput: Throughput
        var workers: [WorkerStatus]
        /// Exact at any queue length: waiting_for_editor asks can_run once per kind and format,
        /// and job by job only where a layer some live worker cannot read is involved.
        var waiting: [WaitingForEditor]
        /// Assets rendered with older math or other output settings than this build's defaults
        /// (read from the kept counts: a few rows, whatever the library's size).
        var stale: Int64
    }

    static func load(
        _ connection: DatabaseConnection, logger: Logger
    ) throws -> Data {
        let queue = JobQueue(connection, logger: logger)
        return Data(
            status: try queue.status(recentFailures: 0), throughput: try queue.throughput(),
            workers: try queue.workers(),
            waiting: try queue.waitingForEditor(),
            stale: try StaleRenders(connection).count(build: RenderBuild().json))
    }

    static func render(_ data: Data, session: WebSession) -> HTML {
        let states: [HTML] = JobState.allCases.map { state in
            "<tr><th scope=\"row\">\(state.rawValue)</th><td class=\"num\">\(Page.number(data.status.countsByState[state] ?? 0))</td></tr>"
        }
        let oldest: HTML =
            data.status.oldestQueued.map {
                "job \($0.jobID), runnable since \(Page.timestamp($0.runAt)) (\(Page.duration($0.age)) ago)"
            } ?? "none"
        let workers: [HTML] = data.workers.map { worker in
            let state = worker.isAlive ? (worker.isStopping ? "stopping" : "alive") : "silent"
            let jobs: HTML =
                worker.rendering.isEmpty
                ? "idle"
                : HTML.joined(
                    worker.rendering.map {
                        "job \($0.jobID) of <a href=\"/assets/\($0.assetID)\">asset \($0.assetID)</a>"
                    }, separator: ", ")
            // What the worker's heartbeat says of its memory budget; an older release says nothing.
            let memory =
                worker.memory.map {
                    "\(ByteCount.format($0.reservedBytes)) in use"
                        + ($0.jobsWaiting > 0 ? ", \($0.jobsWaiting) waiting for memory" : "")
                } ?? "not reported"
            return """
                <tr class="worker-\(state)"><td>\(worker.name)</td><td>\(worker.host) pid \(worker.pid)</td><td>\(state)</td>\
                <td>\(Page.duration(worker.silence)) ago</td><td>\(memory)</td><td>\(jobs)</td></tr>
                """
        }
        let waiting: HTML =
            data.waiting.isEmpty
            ? "<p>None: a live worker can run every queued job.</p>"
            : """
            <table><thead><tr><th>kind</th><th>format</th><th class="num">jobs</th><th>oldest</th></tr></thead><tbody>\
            \(data.waiting.map { group -> HTML in
                "<tr><td>\(group.kind)</td><td>\(group.formatIdentifier ?? "") \(group.formatVersion ?? "")</td><td class=\"num\">\(Page.number(group.jobs))</td><td>\(Page.timestamp(group.oldest))</td></tr>"
            })</tbody></table>
            """
        let hour = data.throughput
        return Page.document(
            title: "Overview", session: session, current: "/", live: true,
            """
            <h1>Overview</h1>
            <div id="live">
            <section class="cards">
            <div class="card"><h2>Jobs by state</h2><table class="states">\(states)</table></div>
            <div class="card"><h2>Last hour</h2><p class="big">\(String(format: "%.2f", hour.jobsPerSecond)) jobs/s</p>\
            <p>\(Page.number(hour.succeeded)) succeeded, \(Page.number(hour.failed)) failed, \(Page.number(hour.cancelled)) cancelled</p></div>
            <div class="card"><h2>Oldest queued job</h2><p>\(oldest)</p></div>
            <div class="card"><h2>Stale renders</h2><p class="big" id="stale">\(Page.number(Int(data.stale)))</p>\
            <p>assets rendered with older math or other output settings than this build's: <code>darkroom rerender --stale</code> \
            queues them, in a batch the <a href="/batches">batches</a> page follows</p></div>
            </section>
            <h2>Workers</h2>
            \(data.workers.isEmpty ? HTML("<p>No worker has reported in.</p>") : HTML("""
                <table><thead><tr><th>name</th><th>where</th><th>state</th><th>last heartbeat</th><th>memory</th><th>rendering</th></tr></thead>\
                <tbody>\(workers)</tbody></table>
                """))
            <h2>Waiting for a newer editor</h2>
            \(waiting)
            </div>
            """)
    }
}
