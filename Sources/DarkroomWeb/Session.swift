import Foundation
import Hummingbird
import HummingbirdAuth

/// What the server keeps per browser (in memory; the cookie holds only a random id).
public struct WebSession: Codable, Sendable, Hashable {
    /// The signed-in account. (Nobody has a session before signing in: the sign-in form's
    /// CSRF token needs none, `SignInForms`.)
    public var user: String?
    public var role: Role?
    /// Every form carries it back; a POST whose token is missing or differs is refused.
    public var csrfToken: String
    /// What the last action did, shown once on the next page.
    public var flash: Flash?

    public struct Flash: Codable, Sendable, Hashable {
        public var message: String
        public var isError: Bool
    }

    public init(user: String? = nil, role: Role? = nil, csrfToken: String = CSRF.newToken()) {
        self.user = user
        self.role = role
        self.csrfToken = csrfToken
    }
}

/// The request context: Hummingbird's core plus the session.
public struct DashboardContext: SessionRequestContext, RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let sessions: SessionContext<WebSession>
    /// The peer's IP address (behind a proxy: the proxy's), for the sign-in throttle.
    public let clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        sessions = .init()
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The signed-in account's name and role.
    var signedIn: (user: String, role: Role)? {
        guard let session = sessions.session, let user = session.user, let role = session.role else { return nil }
        return (user, role)
    }
}

/// Synchronizer tokens: random per session, compared in constant time.
public enum CSRF {
    public static let fieldName = "csrf"

    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// True when both are present and equal, without stopping at the first differing byte.
    public static func matches(_ sent: String?, _ expected: String) -> Bool {
        guard let sent else { return false }
        let a = Array(sent.utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count, !b.isEmpty else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// The fields of a URL-encoded form body (`a=1&b=two+words`).
public struct FormFields: Sendable {
    public private(set) var values: [String: String] = [:]

    public init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            values[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
    }

    public subscript(_ name: String) -> String? { values[name] }
}
