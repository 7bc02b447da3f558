import DarkroomAdjustments
import DarkroomDatabase
import Foundation

/// `/assets/ID`: metadata, the chain of layers bottom first with the original beside each
/// layer's render, the history and the asset's jobs. `/batches/NAME/sample`: before and after
/// for the newest changes a batch made.
enum AssetPages {
    struct Data: Sendable {
        var asset: Asset
        var chain: [Adjustment]
        var history: [AssetHistoryEntry]
        var jobs: [JobSummary]
        /// What the current adjustment's render wrote beside it.
        var renditions: [RenditionFile] = []
    }

    static func load(_ store: AssetStore, id: Int64) throws -> Data? {
        guard let asset = try store.asset(id: id) else { return nil }
        let chain = try store.currentChain(of: id)
        return Data(
            asset: asset, chain: chain, history: try store.history(of: id),
            jobs: try store.recentJobs(of: id, limit: 20),
            renditions: try chain.last.map { try store.renditions(ofAdjustment: $0.id) } ?? [])
    }

    static func renditionURL(_ assetID: Int64, _ name: String) -> String {
        "/assets/\(assetID)/renditions/\(urlComponent(name))"
    }

    /// The current adjustment's renditions: each file as a browser shows it, and what it is.
    static func renditions(_ files: [RenditionFile], assetID: Int64) -> HTML {
        guard !files.isEmpty else { return "<p>None recorded (rendered before renditions were data).</p>" }
        let rows: [HTML] = files.map { file in
            let preview: HTML =
                file.state == "removed"
                ? "—"
                : "<a href=\"\(renditionURL(assetID, file.name))\"><img class=\"rendition\" src=\"\(renditionURL(assetID, file.name))\" alt=\"rendition \(file.name)\" loading=\"lazy\"></a>"
            return
                "<tr><td>\(preview)</td><td>\(file.name)</td><td>version \(file.version)</td><td>\(file.format.uppercased())</td><td>\(file.width)×\(file.height)</td><td>\(Page.number(Int(file.bytes))) bytes</td><td class=\"state-\(file.state)\">\(file.state)</td><td><code>\(file.path)</code></td></tr>"
        }
        return "<table class=\"renditions\"><tbody>\(HTML.joined(rows, separator: ""))</tbody></table>"
    }

    static func originalURL(_ assetID: Int64) -> String { "/assets/\(assetID)/original.jpg" }
    static func adjustmentURL(_ assetID: Int64, _ adjustmentID: Int64) -> String {
        "/assets/\(assetID)/adjustments/\(adjustmentID).jpg"
    }

    /// An Apple Photos layer's adjustments by name (" (Crop, SmartTone)"); empty for other formats.
    static func appleSummary(_ layer: Adjustment) -> String {
        guard layer.formatIdentifier == ApplePhotoFormat.identifier else { return "" }
        return " (\(ApplePhotoFormat.summary(of: layer.data) ?? "unreadable data"))"
    }

    /// " · HDR" when the layer's render carries a gain map.
    static func hdrFlag(_ layer: Adjustment) -> HTML {
        layer.carriesHDR ? " · <strong class=\"hdr\" title=\"carries the original's HDR gain map\">HDR</strong>" : ""
    }

    /// A figure with a thumbnail; nil adjustment means the original.
    static func figure(assetID: Int64, adjustmentID: Int64?, caption: HTML) -> HTML {
        let source = adjustmentID.map { adjustmentURL(assetID, $0) } ?? originalURL(assetID)
        return
            "<figure><img src=\"\(source)\" alt=\"\(adjustmentID.map { "adjustment \($0)" } ?? "the original") of asset \(assetID)\" loading=\"lazy\"><figcaption>\(caption)</figcaption></figure>"
    }

    static func render(_ data: Data, session: WebSession) -> HTML {
        let asset = data.asset
        var location: HTML = "none recorded"
        if let latitude = asset.latitude, let longitude = asset.longitude {
            let map =
                "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=15/\(latitude)/\(longitude)"
            location =
                "\(String(format: "%.5f, %.5f", latitude, longitude))\(asset.altitude.map { String(format: ", %.0f m", $0) } ?? "") <a href=\"\(map)\" rel=\"noreferrer\">map</a>"
        }
        let layers: [HTML] = data.chain.enumerated().map { index, layer in
            """
            <div class="pair">\(figure(assetID: asset.id, adjustmentID: nil, caption: "before: the original"))\
            \(figure(assetID: asset.id, adjustmentID: layer.id, caption: "after layer \(index + 1): adjustment \(layer.id), \(layer.formatIdentifier) \(layer.formatVersion)\(Self.appleSummary(layer))\(layer.baseAdjustmentID.map { " on \($0)" } ?? " on the original")\(layer.rerenderOf.map { ", re-render of \($0)" } ?? "")\(Self.hdrFlag(layer))"))</div>
            """
        }
        let history: [HTML] = data.history.map { entry in
            "<tr><td>\(Page.timestamp(entry.at))</td><td>\(entry.action)</td><td>\(entry.jobID.map { "job \($0)" } ?? "by hand")</td><td>\(entry.previousAdjustmentID.map { "adjustment \($0)" } ?? "the original") → \(entry.adjustmentID.map { "adjustment \($0)" } ?? "the original")</td></tr>"
        }
        let jobs: [HTML] = data.jobs.map { job in
            let cancel: HTML =
                session.role == .operator && job.canCancel
                ? Page.actionButton("Cancel", action: "/jobs/\(job.id)/cancel", session: session) : ""
            let retry: HTML =
                session.role == .operator && job.canRetry
                ? Page.actionButton("Retry", action: "/jobs/\(job.id)/retry", session: session) : ""
            return
                "<tr id=\"job-\(job.id)\"><td>job \(job.id)</td><td>\(job.kind)</td><td class=\"state-\(job.state.rawValue)\">\(job.state.rawValue)</td><td>\(job.formatIdentifier ?? "") \(job.formatVersion ?? "")</td><td>\(job.batch ?? "—")</td><td>\(Page.timestamp(job.createdAt))</td><td>\(cancel)\(retry)</td></tr>"
        }
        return Page.document(
            title: "Asset \(asset.id)", session: session, current: "",
            """
            <h1>Asset \(asset.id)</h1>
            <dl class="meta">
            <dt>original</dt><dd><code>\(asset.originalPath)</code>, \(Page.number(Int(asset.byteSize))) bytes</dd>
            <dt>stored size</dt><dd>\(asset.pixelWidth)×\(asset.pixelHeight), orientation \(asset.orientation)</dd>
            <dt>taken</dt><dd>\(Page.timestamp(asset.creationDate))\(asset.creationDateSource.map { " (\($0))" } ?? "")</dd>
            <dt>location</dt><dd>\(location)</dd>
            <dt>imported</dt><dd>\(Page.timestamp(asset.importedAt))</dd>
            <dt>SHA-256</dt><dd><code>\(asset.contentSHA256)</code></dd>
            \(asset.metadataWarnings.isEmpty ? HTML("") : HTML("<dt>metadata warnings</dt><dd>\(asset.metadataWarnings.joined(separator: "; "))</dd>"))
            </dl>
            <h2>Its look: \(data.chain.isEmpty ? "the original" : "a chain of \(data.chain.count) layer(s), bottom first")</h2>
            \(data.chain.isEmpty ? figure(assetID: asset.id, adjustmentID: nil, caption: "the original") : HTML.joined(layers, separator: "\n"))
            \(data.chain.isEmpty ? HTML("") : HTML("<h2>Renditions of its current look</h2>\n\(renditions(data.renditions, assetID: asset.id))"))
            <h2>History, oldest first</h2>
            \(history.isEmpty ? HTML("<p>No changes yet.</p>") : HTML("<table><tbody>\(history)</tbody></table>"))
            <h2>Jobs, newest first</h2>
            \(jobs.isEmpty ? HTML("<p>None.</p>") : HTML("<table class=\"jobs\"><tbody>\(jobs)</tbody></table>"))
            """)
    }

    static let sampleSize = 12

    static func sample(batch: BatchProgress, changes: [AssetHistoryEntry.Change], session: WebSession) -> HTML {
        let pairs: [HTML] = changes.map { change in
            """
            <div class="pair">\(figure(assetID: change.assetID, adjustmentID: change.before, caption: "<a href=\"/assets/\(change.assetID)\">asset \(change.assetID)</a> before: \(change.before.map { "adjustment \($0)" } ?? "the original")"))\
            \(figure(assetID: change.assetID, adjustmentID: change.after, caption: "after job \(change.jobID) (\(change.action)): \(change.after.map { "adjustment \($0)" } ?? "the original")"))</div>
            """
        }
        return Page.document(
            title: "Batch \(batch.batch): before and after", session: session, current: "/batches",
            """
            <h1>Batch <a href="/batches/\(urlComponent(batch.batch))">\(batch.batch)</a>: before and after</h1>
            <p class="summary">\(batch.summaryLine)</p>
            \(changes.isEmpty ? HTML("<p>No job of this batch has finished yet.</p>") : HTML("""
                <p class="note">The newest \(changes.count) of its finished jobs (at most \(sampleSize)).</p>\(HTML.joined(pairs, separator: "\n"))
                """))
            """)
    }
}
