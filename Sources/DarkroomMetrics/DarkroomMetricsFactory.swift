import CoreMetrics
import Prometheus

/// The swift-metrics backend: every metric goes into a Prometheus registry, with the `# HELP`
/// text and histogram buckets of its `DarkroomMetric` definition (swift-prometheus' own factory
/// has neither per name). Labels it does not know get no help and `fallbackBuckets`.
public struct DarkroomMetricsFactory: MetricsFactory {
    public let registry: PrometheusCollectorRegistry
    public var fallbackBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: DarkroomMetric.byName[label]?.help ?? "")
    }

    private func buckets(_ label: String) -> [Double] {
        DarkroomMetric.byName[label]?.buckets ?? fallbackBuckets
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
        -> any FloatingPointCounterHandler
    {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: buckets(label))
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(
            descriptor: descriptor(label), labels: dimensions,
            buckets: buckets(label).map { .nanoseconds(Int64(($0 * 1e9).rounded())) })
    }

    public func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    public func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    public func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    public func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}

/// This process's metrics: the registry the executable bootstraps swift-metrics with
/// (`MetricsSystem.bootstrap(ProcessMetrics.factory)`) and `/metrics` emits.
public enum ProcessMetrics {
    public static let registry = PrometheusCollectorRegistry()
    public static var factory: DarkroomMetricsFactory { DarkroomMetricsFactory(registry: registry) }
}

/// The Prometheus text exposition format, version 0.0.4.
public enum PrometheusText {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
