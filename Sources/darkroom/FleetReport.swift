import DarkroomDatabase
import DarkroomImaging
import Foundation
import PrintableText
import Timing

/// What `darkroom status` prints after the counts: the last hour, the workers and what each
/// renders, and the jobs that wait for a newer editor.
struct FleetReport {
    var throughput: Throughput
    var workers: [WorkerStatus]
    var waiting: [WaitingForEditor]

    var text: String {
        var lines = [
            String(
                format: "last hour: %d succeeded, %d failed, %d cancelled, %.2f jobs/s",
                throughput.succeeded, throughput.failed, throughput.cancelled, throughput.jobsPerSecond)
        ]
        if workers.isEmpty { lines.append("workers: none") } else { lines.append("workers:") }
        for worker in workers {
            let state = worker.isAlive ? (worker.isStopping ? "stopping" : "alive") : "silent"
            let jobs =
                worker.rendering.isEmpty
                ? "idle"
                : "rendering "
                    + worker.rendering.map { "job \($0.jobID) (asset \($0.assetID))" }.joined(separator: ", ")
            let memory = worker.memory.map {
                "; memory \(ByteCount.format($0.reservedBytes)) in use, \($0.jobsWaiting) job(s) waiting for memory"
            }
            lines.append(
                "  \(Printable.field(worker.name)) on \(Printable.field(worker.host)) pid \(worker.pid): \(state), last heartbeat "
                    + "\(Int(worker.silence.seconds))s ago, \(jobs)\(memory ?? "")")
        }
        if !waiting.isEmpty {
            lines.append("waiting for a newer editor:")
            for group in waiting {
                let format = Printable.field(
                    [group.formatIdentifier, group.formatVersion].compactMap { $0 }.joined(separator: " "))
                lines.append(
                    "  \(group.jobs) \(group.kind) job(s)\(format.isEmpty ? "" : " of " + format), oldest queued \(group.oldest.formatted(.iso8601))"
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
