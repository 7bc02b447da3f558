import DarkroomDatabase
import Foundation

/// `/batches` and `/batches/NAME`: each batch's progress from `darkroom.batch_summary` (the
/// numbers `darkroom status --batch` prints, in the same words), and its failures by code.
enum BatchPages {
    static func list(_ batches: [BatchProgress], session: WebSession) -> HTML {
        let rows: [HTML] = batches.map { batch in
            """
            <tr><td><a href="/batches/\(urlComponent(batch.batch))">\(batch.batch)</a></td><td>\(bar(batch))</td>\
            <td class="num">\(Page.number(batch.done))/\(Page.number(batch.total))</td><td class="num">\(Page.number(batch.failed))</td>\
            <td class="num">\(Page.number(batch.remaining))</td><td class="num">\(rate(batch))</td><td>\(eta(batch))</td></tr>
            """
        }
        return Page.document(
            title: "Batches", session: session, current: "/batches", live: true,
            """
            <h1>Batches</h1><div id="live">
            \(batches.isEmpty ? HTML("<p>No batches yet. <code>darkroom rerender</code> and <code>darkroom job run</code> make them.</p>") : HTML("""
                <table class="batches"><thead><tr><th>batch</th><th>progress</th><th class="num">done</th><th class="num">failed</th>\
                <th class="num">remaining</th><th class="num">rate</th><th>ETA</th></tr></thead><tbody>\(rows)</tbody></table>
                """))
            </div>
            """)
    }

    static func detail(_ batch: BatchProgress, codes: [FailureCodeCount], session: WebSession) -> HTML {
        let name = urlComponent(batch.batch)
        let codeRows: [HTML] = codes.map { code in
            let filter = "/failures?batch=\(name)" + (code.code.map { "&code=\(urlComponent($0))" } ?? "")
            return
                "<tr><td><a href=\"\(filter)\">\(code.code ?? "none recorded")</a></td><td class=\"num\">\(Page.number(code.jobs))</td><td>\(Page.timestamp(code.lastFailedAt))</td></tr>"
        }
        var actions: [HTML] = []
        if session.role == .operator {
            if batch.failed > 0 {
                actions.append(
                    Page.actionButton("Retry failed jobs", action: "/batches/\(name)/retry", session: session))
            }
            if !batch.isFinished {
                actions.append(
                    Page.actionButton("Cancel the batch", action: "/batches/\(name)/cancel", session: session))
            }
        }
        return Page.document(
            title: "Batch \(batch.batch)", session: session, current: "/batches", live: true,
            """
            <h1>Batch \(batch.batch)</h1>
            <div id="live">
            <p class="summary" id="summary">\(batch.summaryLine)</p>
            \(bar(batch, wide: true))
            <table class="counts"><tr><th>queued</th><th>running</th><th>succeeded</th><th>failed</th><th>cancelled</th><th>total</th></tr>
            <tr><td>\(Page.number(batch.queued))</td><td>\(Page.number(batch.running))</td><td>\(Page.number(batch.succeeded))</td>\
            <td>\(Page.number(batch.failed))</td><td>\(Page.number(batch.cancelled))</td><td>\(Page.number(batch.total))</td></tr></table>
            <p>Queued since \(Page.timestamp(batch.createdAt)); last finish \(Page.timestamp(batch.lastFinishedAt)).</p>
            <h2>Failures by code</h2>
            \(codes.isEmpty ? HTML("<p>None.</p>") : HTML("""
                <table><thead><tr><th>code</th><th class="num">jobs</th><th>last</th></tr></thead><tbody>\(codeRows)</tbody></table>
                """))
            <p class="actions">\(actions) <a href="/batches/\(name)/sample">Before and after: a sample of its assets</a></p>
            </div>
            """)
    }

    /// A `<progress>` (no inline style: the content security policy forbids it) and its figure.
    static func bar(_ batch: BatchProgress, wide: Bool = false) -> HTML {
        let percent = batch.total == 0 ? 100 : batch.done * 100 / batch.total
        return """
            <span class="bar\(wide ? " wide" : "")"><progress id="bar-\(batch.batch)" max="\(max(batch.total, 1))" value="\(batch.done)" \
            data-done="\(batch.done)" data-total="\(batch.total)">\(percent)%</progress> <span class="percent">\(percent)%</span></span>
            """
    }

    static func rate(_ batch: BatchProgress) -> String {
        batch.jobsPerSecond.map { String(format: "%.1f/s", $0) } ?? "—"
    }

    static func eta(_ batch: BatchProgress) -> String {
        if batch.isFinished { return "finished" }
        return batch.eta.map(Page.duration) ?? "unknown"
    }
}
