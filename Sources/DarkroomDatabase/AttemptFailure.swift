/// A failed attempt as `darkroom.fail_job` records it. The code is the failing side's own (the
/// worker's `FailureCode`): the database stores it as given, lists none of them and decides
/// nothing on it.
public struct AttemptFailure: Sendable, Hashable, CustomStringConvertible {
    /// Kept in `darkroom.jobs.errors[].code` and as the prefix of `last_error`; snake_case.
    public var code: String
    public var message: String
    /// As the failing side judged it: `darkroom.attempt_fails_job` fails a permanent failure at once.
    public var isPermanent: Bool

    public init(code: String, message: String, isPermanent: Bool) {
        self.code = code
        self.message = message
        self.isPermanent = isPermanent
    }

    public static func permanent(code: String, message: String) -> AttemptFailure {
        AttemptFailure(code: code, message: message, isPermanent: true)
    }

    public static func transient(code: String, message: String) -> AttemptFailure {
        AttemptFailure(code: code, message: message, isPermanent: false)
    }

    public var description: String { "\(code): \(message)" }
}
