import ArgumentParser
import DarkroomMetricsEndpoint
import Timing

/// The flags that set a listener's `ServerLimits` (serve's dashboard, a worker's metrics).
struct ServerLimitOptions: ParsableArguments {
    @Option(
        name: .customLong("header-timeout"),
        help: "Seconds a request's head may take to arrive, from its first byte.")
    var headerTimeout: Double = ServerLimits.defaults.headerTimeout.seconds

    @Option(name: .customLong("body-timeout"), help: "Seconds a request's body may take to arrive, after its head.")
    var bodyTimeout: Double = ServerLimits.defaults.bodyTimeout.seconds

    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a connection may stay open without a request.")
    var idleTimeout: Double = ServerLimits.defaults.idleTimeout.seconds

    @Option(name: .customLong("max-connections"), help: "Connections open at once; more wait for one to close.")
    var maxConnections: Int = ServerLimits.defaults.maxConnections

    var limits: ServerLimits {
        ServerLimits(
            headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
            bodyTimeout: .milliseconds(Int64(bodyTimeout * 1000)),
            idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), maxConnections: maxConnections)
    }

    func validate() throws {
        for value in [headerTimeout, bodyTimeout, idleTimeout] where !value.isFinite || value > 3600 {
            throw ValidationError("the listener's timeouts are at most 3600 s")
        }
        if let problem = limits.problem { throw ValidationError(problem) }
    }
}
