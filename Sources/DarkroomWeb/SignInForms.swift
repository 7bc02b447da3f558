import Crypto
import DarkroomDatabase
import Foundation
import Hummingbird

/// The sign-in form's CSRF protection, with nothing stored for a visitor: the form's token is an
/// expiry and an HMAC-SHA256 over it and a random value held in the visitor's sign-in cookie
/// (HttpOnly, SameSite=Strict), under a key every replica shares (`darkroom.dashboard_key`). A
/// token is good only with the cookie it was made for and only until it expires; making one
/// needs the key. (Signed-in pages use their session's token: `WebSession.csrfToken`.)
public struct SignInForms: Sendable {
    /// How long a sign-in form may stay open, and its cookie live, in seconds.
    public static let lifetime = 15 * 60
    static let purpose = Array("darkroom sign-in form\u{0}".utf8)

    let key: SymmetricKey

    init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    /// The key every replica shares (made on first use; `dashboard_sessions.sql`).
    public static func load(from connection: DatabaseConnection) throws -> SignInForms {
        SignInForms(key: try DashboardSessions(connection).key(for: "sign-in"))
    }

    /// The sign-in cookie's name: with Secure, `__Host-` too, so no sibling host can set it.
    public static func cookieName(secure: Bool) -> String {
        secure ? "__Host-darkroom_sign_in" : "darkroom_sign_in"
    }

    /// A new value for the sign-in cookie: 32 random bytes.
    public static func newCookieValue() -> String { CSRF.newToken() }

    /// The sign-in cookie's value in `request`, if it has one of the form `newCookieValue` makes
    /// (anything else is not sent back in a Set-Cookie).
    public static func cookieValue(in request: Request, secure: Bool) -> String? {
        guard let value = request.cookies[cookieName(secure: secure)]?.value, value.utf8.count == 43,
            Base64URL.decode(value)?.count == 32
        else { return nil }
        return value
    }

    /// The sign-in cookie holding `value` (nil: removing it): the whole site (`__Host-` wants
    /// Path=/), HttpOnly, SameSite=Strict, gone when the forms made for it expire.
    public static func cookie(_ value: String?, secure: Bool) -> Cookie {
        Cookie(
            name: cookieName(secure: secure), value: value ?? "", maxAge: value == nil ? 0 : lifetime, path: "/",
            secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// The form's token for the browser whose sign-in cookie holds `cookie`.
    public func token(for cookie: String, now: Date = Date()) -> String {
        let expiry = Self.bigEndian(Int64(now.timeIntervalSince1970.rounded(.up)) + Int64(Self.lifetime))
        return Base64URL.encode(
            expiry + Array(HMAC<SHA256>.authenticationCode(for: Self.signed(expiry, cookie), using: key)))
    }

    /// Why a sign-in POST's token is refused, or `.valid`.
    public enum Check: String, Sendable, Equatable {
        case valid
        case noCookie = "no sign-in cookie"
        case noToken = "no token in the form"
        case malformed = "the token is not one of ours"
        case forged = "the token was not made for this cookie"
        case expired = "the form is older than its lifetime"
    }

    public func check(_ token: String?, cookie: String?, now: Date = Date()) -> Check {
        guard let cookie, !cookie.isEmpty else { return .noCookie }
        guard let token, !token.isEmpty else { return .noToken }
        guard let bytes = Base64URL.decode(token), bytes.count == 8 + SHA256.byteCount else { return .malformed }
        let expiry = Array(bytes[..<8])
        let code = bytes[8...]
        guard HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Self.signed(expiry, cookie), using: key)
        else { return .forged }
        let expiresAt = expiry.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return Double(expiresAt) > now.timeIntervalSince1970 ? .valid : .expired
    }

    /// What the code covers: a label of its own (so no other HMAC under the key passes), the
    /// expiry and the cookie's value.
    static func signed(_ expiry: [UInt8], _ cookie: String) -> [UInt8] {
        purpose + expiry + Array(cookie.utf8)
    }

    static func bigEndian(_ value: Int64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// Base64 with the URL- and cookie-safe alphabet and no padding (RFC 4648 §5).
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
    }

    /// nil unless `text` is the one spelling `encode` gives (a token has exactly one).
    static func decode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        guard let bytes = Data(base64Encoded: standard).map(Array.init), encode(bytes) == text else { return nil }
        return bytes
    }
}
