import Foundation

/// How the tests wait for something another process, a socket or a browser will do: check the
/// condition itself, often, until a deadline that only guards against a hang. Synchronous, as
/// the callers are (they run on threads of their own, or block on a process anyway).

/// Whether `condition` held within `timeout`, checked every `interval` and once more at the
/// deadline (never a whole interval past it).
@discardableResult
public func eventually(
    timeout: Duration, every interval: Duration = .milliseconds(50), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try condition() { return true }
        let left = deadline - ContinuousClock.now
        if left <= .zero { return false }
        Thread.sleep(forTimeInterval: min(interval, left) / .seconds(1))
    }
}

/// Waits until `condition` holds; after `timeout` throws `WaitTimeout` naming `what` (and
/// `diagnostics()`, read then, such as a process's log).
public func waitUntil(
    _ what: String, timeout: Duration, every interval: Duration = .milliseconds(50),
    diagnostics: () -> String = { "" }, _ condition: () throws -> Bool
) throws {
    guard try eventually(timeout: timeout, every: interval, condition) else {
        throw WaitTimeout(what: what, timeout: timeout, diagnostics: diagnostics())
    }
}

/// A condition that did not come true in time.
public struct WaitTimeout: Error, CustomStringConvertible {
    public var what: String
    public var timeout: Duration
    public var diagnostics: String

    public var description: String { "timed out after \(timeout) waiting until \(what)\(diagnostics)" }
}
