import DarkroomTestSupport
import Foundation
import Testing

@testable import DarkroomDatabase

/// The editing model's pure parts: job kinds and batch progress, without a database. Chains
/// are the database's (ChainRuleTests).
@Suite("Editing model values")
struct EditingModelUnitTests {
    @Test func jobKindsDecodeWithTheColumnsEachNeeds() throws {
        #expect(
            try JobWork(kind: "edit", formatIdentifier: "a.b", formatVersion: "1.0", data: [1])
                == .edit(formatIdentifier: "a.b", formatVersion: "1.0", data: [1]))
        #expect(try JobWork(kind: "revert", formatIdentifier: nil, formatVersion: nil, data: nil) == .revert)
        #expect(try JobWork(kind: "revert_last", formatIdentifier: nil, formatVersion: nil, data: nil) == .revertLast)
        #expect(
            try JobWork(kind: "rerender", formatIdentifier: nil, formatVersion: nil, data: nil)
                == .rerender(formatIdentifier: nil, targetVersion: nil))
        #expect(throws: QueueError.self) {
            try JobWork(kind: "edit", formatIdentifier: "a.b", formatVersion: nil, data: [1])
        }
        let unknown = #expect(throws: QueueError.self) {
            try JobWork(kind: "teleport", formatIdentifier: nil, formatVersion: nil, data: nil)
        }
        #expect(unknown?.description.contains("upgrade it") == true)
        for work in [
            JobWork.revert, .revertLast, .rerender(formatIdentifier: nil, targetVersion: nil),
            .edit(formatIdentifier: "a.b", formatVersion: "1.0", data: []),
        ] {
            #expect(
                try JobWork(kind: work.kind, formatIdentifier: "a.b", formatVersion: "1.0", data: []).kind == work.kind)
        }
    }

    func progress(queued: Int, running: Int = 0, succeeded: Int, failed: Int = 0, rate: Double?, eta: Duration?)
        -> BatchProgress
    {
        BatchProgress(
            batch: "bump", total: queued + running + succeeded + failed, queued: queued, running: running,
            succeeded: succeeded, failed: failed, cancelled: 0, createdAt: Date(), lastFinishedAt: nil,
            jobsPerSecond: rate, eta: eta)
    }

    @Test func progressReadsAsALineAndAsABar() {
        let midway = progress(queued: 540, running: 10, succeeded: 440, failed: 10, rate: 4.2, eta: .seconds(905))
        #expect(midway.done == 450 && midway.remaining == 550 && !midway.isFinished)
        #expect(
            midway.summaryLine
                == "bump: 450/1000 done (440 succeeded, 10 failed), 550 remaining, 4.2 jobs/s, ETA 15m 05s")
        #expect(midway.bar(width: 20) == "[#########-----------]  45% 450/1000 · 10 failed · 4.2/s · ETA 15m 05s")
        let stalled = progress(queued: 3, succeeded: 0, rate: nil, eta: nil)
        #expect(stalled.summaryLine.hasSuffix("ETA unknown (nothing finished in the last 10 minutes)"))
        let finished = progress(queued: 0, succeeded: 7, rate: 0.5, eta: nil)
        #expect(finished.isFinished && finished.bar(width: 4) == "[####] 100% 7/7 · 0.5/s")
        #expect(BatchProgress.format(.seconds(3 * 3600 + 125)) == "3h 02m")
        #expect(BatchProgress.format(.seconds(42)) == "42s")
    }
}
