import Foundation
import Hummingbird
import HummingbirdAuth

/// Every request but the sign-in page and the stylesheet needs a signed-in session; every POST
/// needs the session's CSRF token in its `csrf` field; actions need an operator. Runs after
/// the session middleware, so the session is loaded.
struct SignInGate: RouterMiddleware {
    typealias Context = DashboardContext
    /// Without accounts: the name every browser is signed in as (an operator), on loopback only.
    var localOperator: String?
    /// Paths anyone may request.
    static let openPaths: Set<String> = ["/sign-in", "/dashboard.css", "/dashboard.js"]
    /// The most a form may send.
    static let maxFormBytes = 16 << 10

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        if let localOperator, context.sessions.session?.user == nil {
            context.sessions.createSession(WebSession(user: localOperator, role: .operator))
        }
        if request.method == .post {
            let body = try await request.collectBody(upTo: Self.maxFormBytes)
            let fields = FormFields(String(buffer: body))
            guard let session = context.sessions.session, CSRF.matches(fields[CSRF.fieldName], session.csrfToken) else {
                context.logger.notice("refused a POST without a valid CSRF token", metadata: ["path": "\(request.uri.path)"])
                return Page.refusal(.forbidden, "This form is out of date or did not come from this dashboard (CSRF token missing or wrong). Reload the page and try again.")
            }
        }
        if Self.openPaths.contains(request.uri.path) {
            return try await next(request, context)
        }
        guard context.signedIn != nil else {
            if request.method == .get || request.method == .head {
                let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
                return Response(status: .seeOther, headers: [.location: "/sign-in?next=" + urlComponent(target)])
            }
            return Page.refusal(.forbidden, "Sign in first.")
        }
        return try await next(request, context)
    }
}
