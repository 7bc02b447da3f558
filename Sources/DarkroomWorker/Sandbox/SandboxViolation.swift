import DarkroomDatabase
import Foundation
import PrintableText
import ProcessSandbox

/// How a child ended that says nothing of the input's pixels: it crashed, its filter stopped
/// it, it broke the channel's rules, or it could not start.
struct SandboxViolation: Error, Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case crashed(signal: String)
        case forbiddenCall(Int?)
        case killed
        case exited(Int32)
        case protocolBroken(SandboxError)
        case unavailable(SandboxError)
    }

    var kind: Kind
    /// The end of what the child wrote on stderr, escaped.
    var errors: String = ""

    static func protocolBroken(_ error: SandboxError) -> SandboxViolation {
        SandboxViolation(kind: .protocolBroken(error))
    }
    static func unavailable(_ error: SandboxError) -> SandboxViolation { SandboxViolation(kind: .unavailable(error)) }

    init(kind: Kind, errors: String = "") {
        self.kind = kind
        self.errors = errors
    }

    init(_ ended: SandboxedProcess.Termination, deniedCall: Int?, errors: [UInt8]) {
        // The filter's own report is said in words; anything else the child wrote is quoted, escaped.
        self.errors = deniedCall == nil ? Bounds.escaped(String(decoding: errors.suffix(512), as: UTF8.self)) : ""
        switch ended {
        case .exited(Sandbox.deniedStatus): kind = .forbiddenCall(deniedCall)
        case .exited(let status): kind = .exited(status)
        case .signalled(SIGKILL): kind = .killed
        case .signalled(SIGSYS): kind = .forbiddenCall(nil)
        case .signalled(SIGXFSZ):
            kind = .crashed(signal: "wrote a file larger than any render writes, and was stopped (SIGXFSZ)")
        case .signalled: kind = .crashed(signal: "\(ended)")
        }
    }

    var description: String {
        switch kind {
        case .crashed(let signal): "the decoding process \(signal)"
        case .forbiddenCall(let call?): "the decoding process made system call \(call), which its sandbox forbids"
        case .forbiddenCall(nil): "the decoding process made a system call its sandbox forbids"
        case .killed: "the decoding process was killed (SIGKILL: the kernel's out-of-memory killer, or an operator)"
        case .exited(let status): "the decoding process exited with status \(status) without an answer"
        case .protocolBroken(let error): "the decoding process broke the channel's rules: \(error.message)"
        case .unavailable(let error): "the decoding process could not be started: \(error)"
        }
    }
}

/// Limits on what a child says, which the worker records and logs.
enum Bounds {
    static let maxText = 4096
    static let maxItems = 256
    /// A plan in words (`darkroom render --explain`) is a few dozen lines.
    static let maxExplanation = 256 << 10

    /// `text` with its control characters written as escapes (`Printable.field`), bounded: what
    /// a child wrote, safe for a log line and a terminal.
    static func escaped(_ text: String) -> String { Self.text(Printable.field(text)) }

    /// At most `maxText` bytes of `text`, cut on a character.
    static func text(_ text: String) -> String {
        guard text.utf8.count > maxText else { return text }
        var cut = ""
        for character in text {
            guard cut.utf8.count + character.utf8.count <= maxText else { break }
            cut.append(character)
        }
        return cut
    }
}

extension LayerOutcome {
    /// Whether every list and text is within `Bounds` and the renditions match what was asked.
    func isWithinBounds(renditions expected: Int) -> Bool {
        let texts =
            (editWarnings + renderWarnings).flatMap { [$0.code, $0.message, $0.object ?? ""] }
            + Array(math.keys) + filters.flatMap { [$0.name, $0.version ?? "", $0.sha256 ?? ""] }
            + [formatIdentifier ?? "", formatVersion ?? "", hdr?.sourceFormat ?? ""]
        return texts.allSatisfy { $0.utf8.count <= Bounds.maxText }
            && editWarnings.count + renderWarnings.count <= Bounds.maxItems && math.count <= Bounds.maxItems
            && filters.count <= Bounds.maxItems && renditions.count == expected
            && (data?.count ?? 0) <= SandboxMessage.maxPayload
            && (explanation?.utf8.count ?? 0) <= Bounds.maxExplanation
            && ([outputWidth, outputHeight, outputBytes, plannedMemory, budget]
                + renditions.flatMap {
                    [$0.width, $0.height, $0.bytes]
                }).allSatisfy { $0 >= 0 }
    }
}
