import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// Every request but the sign-in page and the stylesheet needs a signed-in session; every POST
/// must come from this dashboard's own pages and carry its CSRF token in its `csrf` field (the
/// sign-in form: a token `SignInForms` signed for the visitor's sign-in cookie; every other
/// form: the session's); actions need an operator. Runs after the session middleware, so the
/// session is loaded.
struct SignInGate: RouterMiddleware {
    typealias Context = DashboardContext
    /// Without accounts: the name every browser is signed in as (an operator), on loopback only.
    var localOperator: String?
    var signInForms: SignInForms
    /// Whether the cookies are Secure (which names the sign-in cookie).
    var secureCookies: Bool
    /// Paths anyone may request.
    static let openPaths: Set<String> = ["/sign-in", "/dashboard.css", "/dashboard.js"]
    /// The most a form may send.
    static let maxFormBytes = 16 << 10
    /// The header in which a browser says where a request comes from (every current one sends it).
    static let fetchSite = "Sec-Fetch-Site"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var request = request
        // Without accounts, a page's forms need a session's CSRF token; nothing else does, so a
        // stylesheet, a photo or a refused request stores no session.
        let localRead = localOperator != nil && (request.method == .get || request.method == .head)
        if let localOperator, localRead, context.sessions.session?.user == nil, Self.isPage(request.uri.path) {
            context.sessions.createSession(WebSession(user: localOperator, role: .operator))
        }
        if request.method == .post {
            // A form another site sends (a sibling host is "same-site") is refused whatever it
            // carries; a client that says nothing (curl, an old browser) still needs the token.
            if let site = request.headers[.init(Self.fetchSite)!], site != "same-origin", site != "none" {
                context.logger.notice(
                    "refused a POST from another site",
                    metadata: ["path": "\(request.uri.path)", "sec-fetch-site": "\(site)"])
                return Page.refusal(
                    .forbidden, "This form was sent from another site. Open the dashboard and use its own forms.")
            }
            let body = try await request.collectBody(upTo: Self.maxFormBytes)
            if let problem = csrfProblem(request, FormFields(String(buffer: body)), context) {
                context.logger.notice(
                    "refused a POST without a valid CSRF token",
                    metadata: ["path": "\(request.uri.path)", "problem": "\(problem)"])
                return Page.refusal(
                    .forbidden,
                    "This form is out of date or did not come from this dashboard (CSRF token missing or wrong). Reload the page and try again."
                )
            }
        }
        if Self.openPaths.contains(request.uri.path) {
            return try await next(request, context)
        }
        guard context.signedIn != nil || localRead else {
            if request.method == .get || request.method == .head {
                let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                return Response(status: .seeOther, headers: [.location: "/sign-in?next=" + urlComponent(target)])
            }
            return Page.refusal(.forbidden, "Sign in first.")
        }
        return try await next(request, context)
    }

    /// A page (its forms carry a CSRF token), not a file: pages' paths have no extension.
    static func isPage(_ path: String) -> Bool {
        !openPaths.contains(path) && !(path.split(separator: "/").last?.contains(".") ?? false)
    }

    /// Why the form's CSRF token is refused; nil: it is good.
    func csrfProblem(_ request: Request, _ fields: FormFields, _ context: Context) -> String? {
        if request.uri.path == "/sign-in" {
            let check = signInForms.check(
                fields[CSRF.fieldName], cookie: SignInForms.cookieValue(in: request, secure: secureCookies))
            return check == .valid ? nil : check.rawValue
        }
        guard let session = context.sessions.session else { return "no session" }
        return CSRF.matches(fields[CSRF.fieldName], session.csrfToken) ? nil : "not the session's token"
    }
}
