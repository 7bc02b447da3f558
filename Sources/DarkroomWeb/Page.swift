import DarkroomDatabase
import Foundation
import Hummingbird

/// The chrome every page shares, and the small formatting helpers the pages use.
enum Page {
    /// A whole document: navigation, the signed-in account with its sign-out form, and `body`.
    /// `live` marks a page whose `#live` part the script refreshes every two seconds.
    static func document(title: String, session: WebSession?, current: String, live: Bool = false, _ body: HTML) -> HTML
    {
        let links: [(String, String)] = [
            ("/", "Overview"), ("/batches", "Batches"), ("/failures", "Failures"), ("/filters", "Filters"),
        ]
        let nav: [HTML] = links.map { path, label in
            path == current
                ? "<a href=\"\(path)\" aria-current=\"page\">\(label)</a>" : "<a href=\"\(path)\">\(label)</a>"
        }
        var account: HTML = ""
        if let session, let user = session.user, let role = session.role {
            account = """
                <form method="post" action="/sign-out" class="account">\(csrfField(session))\
                <span>\(user) · \(role.rawValue)</span> <button type="submit">Sign out</button></form>
                """
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin">
            <title>\(title) · darkroom</title><link rel="stylesheet" href="/dashboard.css">\
            \(live ? HTML("<script src=\"/dashboard.js\" defer></script>") : "")</head>
            <body><header><strong class="brand">darkroom</strong><nav>\(nav)</nav>\(account)</header>
            <main>\(session?.flash.map { flash -> HTML in
                "<p class=\"flash\(flash.isError ? " error" : "")\" role=\"status\">\(flash.message)</p>" } ?? "")\(body)</main></body></html>
            """
    }

    /// The hidden field every form carries: the session's token (the sign-in form: `SignInForms`'s).
    static func csrfField(_ session: WebSession) -> HTML { csrfField(token: session.csrfToken) }

    static func csrfField(token: String) -> HTML {
        "<input type=\"hidden\" name=\"\(CSRF.fieldName)\" value=\"\(token)\">"
    }

    /// A POST button (a form of its own, with the CSRF token).
    static func actionButton(_ label: String, action: String, session: WebSession, confirm: String? = nil) -> HTML {
        "<form method=\"post\" action=\"\(action)\" class=\"inline\">\(csrfField(session))<button type=\"submit\"\(confirm.map { HTML(" title=\"\($0)\"") } ?? "")>\(label)</button></form>"
    }

    static func response(_ html: HTML, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: securityHeaders([.contentType: "text/html; charset=utf-8"]),
            body: .init(byteBuffer: ByteBuffer(string: html.markup)))
    }

    /// A short page saying why a request was refused or failed.
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        response(
            document(
                title: "\(status.code) \(status.reasonPhrase)", session: nil, current: "",
                """
                <h1>\(status.code) \(status.reasonPhrase)</h1><p class="refusal">\(message)</p><p><a href="/">Back to the overview</a></p>
                """), status: status)
    }

    /// No framing, no foreign scripts or styles, no MIME sniffing (the pages' referrer policy is
    /// a meta tag).
    static func securityHeaders(_ fields: HTTPFields) -> HTTPFields {
        var fields = fields
        fields[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
        fields[.xContentTypeOptions] = "nosniff"
        fields[.cacheControl] = fields[.cacheControl] ?? "no-store"
        return fields
    }

    /// "3h 02m", "15m 05s", "42s": the CLI's format.
    static func duration(_ duration: Duration) -> String { BatchProgress.format(duration) }

    static func timestamp(_ date: Date?) -> HTML {
        guard let date else { return "—" }
        let text = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        return
            "<time datetime=\"\(text)\">\(text.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC"))</time>"
    }

    static func number(_ value: Int) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US_POSIX")))
    }
}
