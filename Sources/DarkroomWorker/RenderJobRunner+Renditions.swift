import DarkroomDatabase
import DarkroomImaging
import DarkroomMetrics
import Logging

/// A renditions job: the renditions the asset's top layer lacks (`settings.renditions`, as the
/// worker read them from `darkroom.missing_renditions`), scaled from that layer's stored render
/// with its gain map. Nothing is replayed and the look's records stay: the files are recorded on
/// the top layer, replacing its older versions (docs/renditions.md says why the stored render).
extension RenderJobRunner {
    func writeRenditions(
        _ job: ClaimedJob, asset: Asset, chain: [Adjustment], logger: Logger,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws(JobFailure) -> JobResult {
        let expected = JobResult.ExpectedCurrent(asset.currentAdjustmentID)
        guard let top = chain.last else {
            return JobResult(
                .none(outcome: "asset \(asset.id) shows its original, which has no renditions"),
                expectedCurrent: expected)
        }
        guard !settings.renditions.isEmpty else {
            return JobResult(
                .none(outcome: "adjustment \(top.id) has every current rendition already"), expectedCurrent: expected)
        }
        let input = try renderInput(of: top, asset: asset)
        let reads = CountingSource.Tally()
        defer { metrics.read(reads.bytes, from: input.metricsInput) }
        let streams = try streams(
            reading: input, counting: reads, into: nil, withRenditions: true, asset: asset, job: job,
            isCancelled: isCancelled)
        let outcome: LayerOutcome
        do {
            outcome = try render(nil, streams: streams, input: input, job: job, adjustmentID: top.id)
        } catch {
            throw failure(error, input: input, job: job, adjustmentID: top.id)
        }
        metrics.wrote(outcome.renditions.reduce(0) { $0 + $1.bytes }, to: .renditions)
        metrics.renderMemory(peak: outcome.plannedMemory, budget: outcome.budget)
        log(outcome.renderWarnings, job: job, asset: asset, logger: logger)
        let written = outcome.written(settings.renditions, paths: streams.renditions.map(\.path))
        return JobResult(
            .renditions(adjustmentID: top.id, files: written.map(\.json), warnings: outcome.renderWarnings),
            expectedCurrent: expected)
    }
}
