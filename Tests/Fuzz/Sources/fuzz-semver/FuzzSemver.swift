import DarkroomAdjustments
import Foundation
import FuzzSupport

/// The input is one or two versions (split at the first newline). SQL owns what a valid version
/// is (`semver.sql`); Swift must agree with its pattern and length limit on every string.
/// Properties: the same verdict as the SQL rule; a valid version prints as written; precedence
/// is a total order (exactly one of <, >, == holds, and == versions hash alike).
let sqlRule = try! NSRegularExpression(
    pattern:
        #"\A(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})(\.(0|[1-9][0-9]{0,8}))?(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?\z"#
)
let sqlMaxLength = 255

func sqlAccepts(_ text: String) -> Bool {
    text.unicodeScalars.count <= sqlMaxLength
        && sqlRule.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSemver(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let versions = parts.map { part in
            let version = SemanticVersion(part)
            require(
                (version != nil) == sqlAccepts(part),
                "Swift \(version == nil ? "refuses" : "accepts") \(part.debugDescription), SQL \(sqlAccepts(part) ? "accepts" : "refuses") it"
            )
            if let version { require(version.description == part, "\(part.debugDescription) prints as \(version)") }
            return version
        }
        guard versions.count == 2, let a = versions[0], let b = versions[1] else { return }
        let verdicts = [a < b, b < a, a == b].filter { $0 }.count
        require(verdicts == 1, "\(a) and \(b): < \(a < b), > \(b < a), == \(a == b)")
        if a == b { require(a.hashValue == b.hashValue, "\(a) == \(b) but their hashes differ") }
    }
}
