import Dispatch
import Foundation
import Hummingbird
import HummingbirdAuth

/// `/sign-in` and `/sign-out`. Nothing is stored for a visitor until they sign in: the form's
/// CSRF token is signed for a random value in their sign-in cookie (`SignInForms`, checked by
/// `SignInGate`). Signing in starts a new session (a new id, so an id planted before sign-in is
/// worth nothing afterwards) with a new CSRF token, and drops the sign-in cookie.
struct SignInRoutes {
    let dashboard: Dashboard

    var secure: Bool { dashboard.options.secureCookies }

    func add(to router: Router<DashboardContext>) {
        router.get("/sign-in") { request, context -> Response in
            if context.signedIn != nil { return Response(status: .seeOther, headers: [.location: "/"]) }
            // The same cookie for every tab this browser opens the form in, so each form stays good.
            let cookie = SignInForms.cookieValue(in: request, secure: secure) ?? SignInForms.newCookieValue()
            return form(cookie: cookie, next: request.uri.queryParameters.get("next"), problem: nil)
        }

        router.post("/sign-in") { request, context -> Response in
            var request = request
            let fields = FormFields(String(buffer: try await request.collectBody(upTo: SignInGate.maxFormBytes)))
            let name = fields["name"] ?? ""
            let password = fields["password"] ?? ""
            let next = Self.safeNext(fields["next"])
            guard let accounts = dashboard.options.accounts else {
                return Response(status: .seeOther, headers: [.location: next])
            }
            // SignInGate let this through only with a token signed for this cookie.
            let cookie = SignInForms.cookieValue(in: request, secure: secure) ?? SignInForms.newCookieValue()
            // Throttled before the password is even checked: a guess made while waiting says nothing.
            let address = context.clientAddress
            let wait = try await dashboard.read {
                try SignInThrottle(connection: $0).wait(account: name, address: address)
            }
            if wait > 0 {
                return throttled(wait, name: name, address: address, cookie: cookie, next: next)
            }
            // bcrypt is slow on purpose: not on the event loop.
            let account = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: accounts.verify(name: name, password: password))
                }
            }
            _ = try await dashboard.read {
                try SignInThrottle(connection: $0).record(account: name, address: address, succeeded: account != nil)
            }
            guard let account else {
                dashboard.audit.record(
                    .init(
                        at: Date(), actor: name, action: "sign-in", target: nil,
                        result: "refused: wrong name or password"))
                return form(cookie: cookie, next: next, problem: "Wrong name or password.", status: .unauthorized)
            }
            context.sessions.createSession(
                WebSession(user: account.name, role: account.role), expiresIn: dashboard.options.sessionLifetime)
            dashboard.audit.record(
                .init(
                    at: Date(), actor: account.name, action: "sign-in", target: nil,
                    result: "signed in as \(account.role.rawValue)"))
            var response = Response(status: .seeOther, headers: [.location: next])
            response.setCookie(SignInForms.cookie(nil, secure: secure))
            return response
        }

        router.post("/sign-out") { _, context -> Response in
            if let user = context.signedIn?.user {
                dashboard.audit.record(
                    .init(at: Date(), actor: user, action: "sign-out", target: nil, result: "signed out"))
            }
            context.sessions.clearSession()
            return Response(
                status: .seeOther, headers: [.location: dashboard.options.accounts == nil ? "/" : "/sign-in"])
        }
    }

    /// 429 with Retry-After: too many failures for this name or from this address.
    func throttled(_ wait: Double, name: String, address: String, cookie: String, next: String) -> Response {
        let seconds = Int(wait.rounded(.up))
        dashboard.audit.record(
            .init(
                at: Date(), actor: name, action: "sign-in", target: nil,
                result: "refused: throttled for \(seconds) s (from \(address))"))
        var response = form(
            cookie: cookie, next: next,
            problem: "Too many failed sign-ins for this name or from this address. Try again in \(seconds) s.",
            status: .tooManyRequests)
        response.headers[.retryAfter] = String(seconds)
        return response
    }

    /// The form with a fresh token for `cookie`, and the cookie (again, so it lives as long as the form).
    func form(cookie: String, next: String?, problem: String?, status: HTTPResponse.Status = .ok) -> Response {
        var response = Page.response(
            Self.form(token: dashboard.signInForms.token(for: cookie), next: next, problem: problem), status: status)
        response.setCookie(SignInForms.cookie(cookie, secure: secure))
        return response
    }

    /// Only a path on this site: never a redirect to another host. Browsers drop tabs and newlines
    /// anywhere in a URL and read a backslash as a slash (`/<TAB>/evil.example` is `//evil.example`),
    /// so anything but printable ASCII, a space or a backslash refuses `next` whole.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), next.utf8.count <= 2048,
            next.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") })
        else { return "/" }
        return next
    }

    static func form(token: String, next: String?, problem: String?) -> HTML {
        Page.document(
            title: "Sign in", session: nil, current: "",
            """
            <form method="post" action="/sign-in" class="signin">
            <h1>Sign in</h1>
            \(problem.map { HTML("<p class=\"refusal\">\($0)</p>") } ?? "")
            \(Page.csrfField(token: token))<input type="hidden" name="next" value="\(safeNext(next))">
            <label>Name <input name="name" autocomplete="username" required autofocus></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <button type="submit">Sign in</button>
            </form>
            """)
    }
}
