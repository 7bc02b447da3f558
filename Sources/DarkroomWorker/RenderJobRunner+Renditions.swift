import ByteStreams
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
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
        let source = CountingSource(try open(input), tally: reads)
        defer { metrics.read(reads.bytes, from: input.metricsInput) }
        var uploads: [(upload: any ObjectUpload, path: String)] = []
        do throws(JobFailure) {
            for target in settings.renditions {
                let key = try renditionKey(target.rendition, asset: asset, job: job)
                uploads.append((try beginPublishing(key), key.rawValue))
            }
        } catch {
            for target in uploads { target.upload.abort() }
            throw error
        }
        var streams = LayerRenderer.Streams(
            input: source,
            reopen: { [self] () throws -> any ByteSource in CountingSource(try open(input), tally: reads) },
            output: nil, renditions: uploads, scratchDirectory: storage.scratchDirectory)
        streams.bufferedBytesPerStream = storage.bufferedBytesPerStream
        streams.isCancelled = isCancelled
        let rendered: (result: RenderResult, written: [WrittenRendition])
        do {
            rendered = try layers(for: job).renderRenditions(streams: streams)
        } catch {
            throw failure(error, input: input, job: job, adjustmentID: top.id)
        }
        metrics.wrote(rendered.result.renditions.reduce(0) { $0 + $1.bytes }, to: .renditions)
        metrics.renderMemory(peak: rendered.result.plan.memory.total, budget: rendered.result.plan.budget)
        let warnings = rendered.result.warnings.map(RecordedWarning.init)
        for warning in warnings {
            logger.warning(
                "render warning",
                metadata: [
                    "job_id": "\(job.id)", "asset_id": "\(asset.id)", "code": "\(warning.code)",
                    "reason": "\(warning.message)",
                ])
        }
        return JobResult(
            .renditions(adjustmentID: top.id, files: rendered.written.map(\.json), warnings: warnings),
            expectedCurrent: expected)
    }
}
