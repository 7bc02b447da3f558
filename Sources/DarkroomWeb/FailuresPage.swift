import DarkroomDatabase
import Foundation

/// `/failures?code=…&batch=…`: the newest failures (`darkroom.failures`) with every attempt's
/// error, filtered by the last attempt's code and by batch; retry one job from here.
enum FailuresPage {
    static let limit = 50

    struct Filter: Sendable, Hashable {
        var code: String?
        var batch: String?

        init(code: String?, batch: String?) {
            self.code = code.flatMap { $0.isEmpty ? nil : $0 }
            self.batch = batch.flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Filtered by a batch, an operator may retry all of its failed jobs at once.
    static func batchActions(_ filter: Filter, failures: [FailedJobDetail], session: WebSession) -> HTML {
        guard session.role == .operator, let batch = filter.batch, !failures.isEmpty else { return "" }
        return
            "<p class=\"actions\">\(Page.actionButton("Retry every failed job of \(batch)", action: "/batches/\(urlComponent(batch))/retry", session: session))</p>"
    }

    /// `codes`: the codes failed jobs have stored, offered as the filter's suggestions.
    static func render(
        _ failures: [FailedJobDetail], codes stored: [FailureCodeCount], filter: Filter, session: WebSession
    )
        -> HTML
    {
        let codes: [HTML] = stored.compactMap(\.code).map { "<option value=\"\($0)\">" }
        let rows: [HTML] = failures.map { failure in
            let attempts: [HTML] = failure.errors.map { error in
                "<li><span class=\"code\">\(error.code)</span> attempt \(error.attempt) at \(Page.timestamp(error.at))\(error.worker.map { " on \($0)" } ?? ""): \(error.message)</li>"
            }
            let retry: HTML =
                session.role == .operator
                ? Page.actionButton("Retry", action: "/jobs/\(failure.jobID)/retry", session: session) : ""
            return """
                <tr id="job-\(failure.jobID)"><td>job \(failure.jobID)</td><td><a href="/assets/\(failure.assetID)">asset \(failure.assetID)</a></td>\
                <td>\(failure.batch.map { HTML("<a href=\"/batches/\(urlComponent($0))\">\($0)</a>") } ?? "—")</td>\
                <td><span class="code">\(failure.code ?? "none")</span></td><td>\(Page.timestamp(failure.finishedAt))</td>\
                <td><details><summary>\(failure.attempts) attempt(s)\(failure.crashes > 0 ? HTML(", \(failure.crashes) crash(es)") : "")</summary>\
                <ol class="attempts">\(attempts)</ol></details></td><td>\(retry)</td></tr>
                """
        }
        return Page.document(
            title: "Failures", session: session, current: "/failures",
            """
            <h1>Failures</h1>
            <form method="get" action="/failures" class="filter">
            <label>code <input name="code" list="codes" value="\(filter.code ?? "")"></label><datalist id="codes">\(codes)</datalist>
            <label>batch <input name="batch" value="\(filter.batch ?? "")"></label>
            <button type="submit">Filter</button> <a href="/failures">clear</a></form>
            \(batchActions(filter, failures: failures, session: session))
            \(failures.isEmpty ? HTML("<p>No failures\(filter == Filter(code: nil, batch: nil) ? "" : " match this filter").</p>") : HTML("""
                <p class="note">The newest \(limit) at most.</p>
                <table class="failures"><thead><tr><th>job</th><th>asset</th><th>batch</th><th>last code</th><th>failed</th>\
                <th>errors, oldest first</th><th></th></tr></thead><tbody>\(rows)</tbody></table>
                """))
            """)
    }
}
