import CoreMetrics
import Synchronization
import Timing

/// What a worker records, through swift-metrics, under the names of `DarkroomMetric`. The
/// worker calls these where the events happen; it decides nothing from them.
///
/// Records into `factory`, or swift-metrics' bootstrapped backend when it is nil (the
/// executable's; a library never bootstraps one). A test gives its worker its own factory.
public final class WorkerMetrics: Sendable {
    /// Which stored object a render read.
    public enum Input: String, Sendable {
        case original, render
    }

    /// Which object a render published: the full-size render, or its renditions (the display copy among them).
    public enum Output: String, Sendable {
        case render, renditions
    }

    private let factory: (any MetricsFactory)?
    private let peakMemory = Mutex(0)
    private let peakDecoderMemory = Mutex(0)

    public init(factory: (any MetricsFactory)? = nil) {
        self.factory = factory
    }

    private var backend: any MetricsFactory { factory ?? MetricsSystem.factory }

    private func dimensions(_ metric: MetricDefinition, _ values: [String]) -> [(String, String)] {
        precondition(values.count == metric.labels.count, "\(metric.name) takes the labels \(metric.labels)")
        return Array(zip(metric.labels, values))
    }

    private func timer(_ metric: MetricDefinition, _ values: String...) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: metric.name, dimensions: dimensions(metric, values), factory: backend)
    }

    private func counter(_ metric: MetricDefinition, _ values: String...) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: metric.name, dimensions: dimensions(metric, values), factory: backend)
    }

    private func gauge(_ metric: MetricDefinition) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: metric.name, dimensions: [], factory: backend)
    }

    /// One claim query: `found` when it handed out a job.
    public func claimed(found: Bool, in duration: Duration) {
        timer(DarkroomMetric.claimDuration, found ? "claimed" : "empty").recordNanoseconds(duration.nanoseconds)
    }

    /// One job's render, from reading its asset to its published outputs (or its failure).
    public func rendered(kind: String, succeeded: Bool, in duration: Duration) {
        timer(DarkroomMetric.renderDuration, kind, succeeded ? "rendered" : "failed").recordNanoseconds(
            duration.nanoseconds)
    }

    /// A job's attempt ended: `outcome` and `code` as `DarkroomMetric.jobs` describes them.
    public func finished(outcome: String, code: String) {
        counter(DarkroomMetric.jobs, outcome, code).increment()
    }

    public func read(_ bytes: Int, from input: Input) {
        guard bytes > 0 else { return }
        counter(DarkroomMetric.bytesRead, input.rawValue).increment(by: bytes)
    }

    public func wrote(_ bytes: Int, to output: Output) {
        guard bytes > 0 else { return }
        counter(DarkroomMetric.bytesWritten, output.rawValue).increment(by: bytes)
    }

    /// One render's planned peak memory and the budget it was planned within.
    public func renderMemory(peak: Int, budget: Int) {
        let largest = peakMemory.withLock { largest in
            largest = max(largest, peak)
            return largest
        }
        gauge(DarkroomMetric.renderMemoryPeak).record(largest)
        gauge(DarkroomMetric.renderMemoryBudget).record(budget)
        if budget > 0 {
            CoreMetrics.Recorder(
                label: DarkroomMetric.renderMemoryUsed.name, dimensions: [], aggregate: true, factory: backend
            )
            .record(Double(peak) / Double(budget))
        }
    }

    /// A decoding child's peak resident set, once it has been reaped.
    public func decoderMemory(peak: Int) {
        let largest = peakDecoderMemory.withLock { largest in
            largest = max(largest, peak)
            return largest
        }
        gauge(DarkroomMetric.decoderResidentPeak).record(largest)
    }

    /// The worker's size and how much of it is in use.
    public func jobsInHand(_ count: Int, slots: Int) {
        gauge(DarkroomMetric.jobsInHand).record(count)
        gauge(DarkroomMetric.slots).record(slots)
    }

    /// The worker's memory budget: bytes its renders hold now, and jobs waiting for theirs.
    public func memory(reserved: Int, waiting: Int) {
        gauge(DarkroomMetric.memoryReserved).record(reserved)
        gauge(DarkroomMetric.jobsWaitingForMemory).record(waiting)
    }
}
