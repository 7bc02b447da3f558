import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Foundation
import Testing
import Timing

@testable import DarkroomWorker

@Suite("Worker decisions without a worker")
struct WorkerDecisionTests {
    @Test func aLoneJobGetsTheEncoderThreadOnTwoCores() {
        #expect(SlotResources.renderThreads(threadsInUse: 0, cores: 2) == 2)
        // Started beside it: one thread each, so the two jobs keep both cores busy.
        #expect(SlotResources.renderThreads(threadsInUse: 2, cores: 2) == 1)
        #expect(SlotResources.renderThreads(threadsInUse: 1, cores: 2) == 1)
    }

    @Test func onOneCoreEveryJobIsSingleThreaded() {
        #expect(SlotResources.renderThreads(threadsInUse: 0, cores: 1) == 1)
    }

    @Test func onFourCoresJobsGetTheSecondThreadWhileItFits() {
        var inUse = 0
        var given: [Int] = []
        for _ in 0..<4 {
            let threads = SlotResources.renderThreads(threadsInUse: inUse, cores: 4)
            given.append(threads)
            inUse += threads
        }
        #expect(given == [2, 2, 1, 1])
    }

    @Test func theDefaultConcurrencyIsOnePerCore() throws {
        #expect(WorkerOptions.defaultConcurrency == min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 64))
        let options = WorkerOptions(
            databaseURL: "", storage: try StorageRoot(NSTemporaryDirectory()), memoryBudget: 256 << 20)
        #expect(options.concurrency == WorkerOptions.defaultConcurrency)
        // Every render is planned against the whole budget; the slots share it by admission.
        #expect(options.renderSettings.memoryBudget == 256 << 20)
    }

    @Test func reconnectBackoffDoublesToItsCapWithinItsJitter() {
        var backoff = BackoffWaits(.reconnect)
        let lowest = (0..<10).map { _ in backoff.next(randomUnit: 1).seconds }
        #expect(lowest == [0.25, 0.5, 1, 2, 4, 8, 15, 15, 15, 15])
        backoff.reset()
        #expect(backoff.next(randomUnit: 0) == .milliseconds(500))
        #expect(backoff.next(randomUnit: -7) == .seconds(1), "chance outside 0...1 is clamped")
    }

    /// Every render code has its failure code, of the same spelling; a codec's error is recorded
    /// as its format and code. Total: each code of each enum is enumerated, none may fall back
    /// to `render_failed`, and no two share a failure code.
    @Test func everyRenderErrorCodeIsRecordedUnderItsOwnFailureCode() {
        let underlying = StreamError(code: .io, object: "p", message: "m")
        var recorded: [FailureCode] = []
        for code in RenderError.Code.allCases where code != .codec {
            let failure = FailureCode(code, codec: nil)
            #expect(failure.rawValue == code.rawValue, "\(code)")
            recorded.append(failure)
        }
        for format in CodecError.Format.allCases {
            for code in CodecError.Code.allCases {
                let codec = CodecError(
                    code: code, format: format, message: "m", object: "p", isPermanent: true, cause: underlying)
                let failure = FailureCode(.codec(codec))
                #expect(failure.rawValue == "\(format.rawValue)_\(code.rawValue)")
                #expect(failure == FailureCode(RenderError.Code.codec, codec: codec))
                recorded.append(failure)
            }
        }
        #expect(!recorded.contains(.renderFailed) && Set(recorded).count == recorded.count)
    }

    /// The codes the database holds from renders, spelled as operators query them.
    @Test func renderCodesKeepTheirStoredSpelling() {
        #expect(
            RenderError.Code.allCases.map(\.rawValue) == [
                "codec", "crop_out_of_bounds", "invalid_rotation", "filter_not_loaded", "memory_budget_exceeded",
                "image_too_large", "spill_failed", "output_failed", "render_cancelled",
            ])
        #expect(FailureCode.assetChanged.rawValue == QueueError.Code.assetChanged.rawValue)
    }

    /// Each constructor keeps its context and decides whether a retry could help.
    @Test func renderErrorsCarryTheirContextAndCause() {
        let budget = RenderError.budgetTooSmall(needed: 2 << 20, budget: 1 << 20, reason: "a progressive JPEG")
        #expect(budget.code == .memoryBudgetExceeded && budget.isPermanent)
        #expect(budget.bytesNeeded == 2 << 20 && budget.memoryBudget == 1 << 20)
        #expect(
            budget.description == "a progressive JPEG needs 2 MiB but the memory budget is 1 MiB; "
                + "raise --memory-budget to at least 2 MiB")
        let spill = RenderError.spill(path: "/scratch", message: "write failed", errno: ENOSPC)
        #expect(spill.code == .spillFailed && !spill.isPermanent && spill.cause == .system(errno: ENOSPC))
        #expect(spill.object == "/scratch" && spill.description.contains("No space left on device"))
        let rejected = StreamError(code: .rejected, object: "renders/1.jpg", message: "403")
        let output = RenderError.output(rejected)
        #expect(output.code == .outputFailed && output.isPermanent && output.cause == .stream(rejected))
        #expect(!RenderError.output(StreamError(code: .io, object: "o", message: "m")).isPermanent)
        let crop = RenderError.cropOutOfBounds(
            operationIndex: 2, crop: PixelRect(x: 5, y: 0, width: 10, height: 10),
            canvas: PixelSize(width: 8, height: 8))
        #expect(crop.operationIndex == 2 && crop.region?.x == 5 && crop.canvas == PixelSize(width: 8, height: 8))
        #expect(RenderError.cancelled.code == .cancelled && !RenderError.cancelled.isPermanent)
    }

    @Test func adjustmentAndStorageCodesKeepTheirStrings() {
        let adjustment: [AdjustmentError.Code] = [
            .malformedData, .unknownOperation, .invalidParameter, .unknownFormat,
            .unsupportedVersion, .dataTooLarge, .unrepresentable,
        ]
        for code in adjustment { #expect(FailureCode(code).rawValue == code.rawValue) }
        let storage: [StorageError.Code] = [.notConfigured, .unavailable, .outsideRoot, .symlinkInPath]
        for code in storage { #expect(FailureCode(code).rawValue == code.rawValue) }
        let streams: [StreamError.Code] = [.notFound, .unavailable, .refused, .outsideStorage, .symlinkInPath, .io]
        for code in streams { #expect(FailureCode(code).rawValue == code.rawValue) }
    }

    @Test func theSummaryCountsOutcomesByWhatTheyMeanForTheExitCode() {
        let result = JobResult(.none(outcome: "n"), expectedCurrent: nil)
        let failure = JobFailure.transient(code: .storageIO, message: "m")
        var clean = WorkerSummary()
        for outcome: JobOutcome in [
            .succeeded(result, .recorded(currentAdjustmentID: nil)), .discarded(.cancelled),
            .released(.shutdown),
        ] {
            clean.record(outcome)
        }
        #expect(clean.exitCode == 0)
        #expect((clean.succeeded, clean.cancelled, clean.released) == (1, 1, 1))
        #expect(clean.description.contains("1 released at shutdown") && clean.description.contains("1 cancelled"))

        for outcome: JobOutcome in [
            .failed(failure), .retried(failure, after: .seconds(1)), .discarded(.takenOver),
            .abandoned(.databaseAwayAtShutdown),
        ] {
            var summary = WorkerSummary()
            summary.record(outcome)
            #expect(summary.exitCode == 3, "\(outcome)")
        }
    }

    /// What a decoding child wrote reaches a job's error and the log escaped by the same rule as
    /// the command line's output (`Printable`), bidirectional overrides too, and bounded.
    @Test func whatAChildWroteIsEscapedAndBounded() {
        #expect(Bounds.escaped("bad\nforged\u{1B}[31m\u{202E}x") == #"bad\nforged\u{1B}[31m\u{202E}x"#)
        let long = Bounds.escaped(String(repeating: "é", count: Bounds.maxText))
        #expect(long.utf8.count <= Bounds.maxText && long.hasPrefix("éé"))
    }
}
