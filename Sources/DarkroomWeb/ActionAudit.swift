import Foundation
import Logging

/// Who did what, when, and what came of it: every sign-in, sign-out and action.
///
/// Actions run through the operator API with `darkroom.actor` set to the account's name for
/// their transaction (`AuditTrail.acting`), so the API functions record them in
/// `darkroom.audit_log` (read through `darkroom.audit_trail`) with the database login beside the
/// account. What the database does not see (sign-ins, sign-outs, refusals by role) is recorded
/// here too: every event as a log line at notice level (the journal under systemd) and, when a
/// file is configured, as one JSON line there.
public final class ActionAudit: Sendable {
    public struct Event: Sendable, Codable, Hashable {
        public var at: Date
        public var actor: String
        /// `sign-in`, `sign-out`, `retry-job`, `cancel-job`, `retry-batch`, `cancel-batch`, …
        public var action: String
        /// The job id or batch name acted on.
        public var target: String?
        /// What came of it, in words (`queued again`, `refused: …`).
        public var result: String
        /// Where the request came from.
        public var client: String?
    }

    private let logger: Logger
    private let file: FileHandle?
    private let lock = NSLock()

    /// `path`: the JSON-lines file to append to, created with mode 600 if missing.
    public init(path: String?, logger: Logger) throws {
        self.logger = logger
        guard let path else {
            file = nil
            return
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw AccountFileError(.unwritable, "cannot create the audit file", object: path)
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw AccountFileError(.unwritable, "cannot open the audit file for appending", object: path)
        }
        handle.seekToEndOfFile()
        file = handle
    }

    public func record(_ event: Event) {
        logger.notice(
            "audit",
            metadata: [
                "actor": "\(event.actor)", "action": "\(event.action)", "target": "\(event.target ?? "")",
                "result": "\(event.result)", "client": "\(event.client ?? "")",
            ])
        guard let file else { return }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        guard var line = try? encoder.encode(event) else { return }
        line.append(UInt8(ascii: "\n"))
        lock.withLock { file.write(line) }
    }
}
