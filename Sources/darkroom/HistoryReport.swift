import DarkroomAdjustments
import DarkroomDatabase
import Foundation

/// The text `darkroom history` prints: the chain the asset shows, bottom first, then every
/// change of its look, oldest first.
struct HistoryReport {
    var asset: Asset
    /// The layers it shows, bottom first (`AssetStore.currentChain`).
    var chain: [Adjustment]
    var adjustments: [Adjustment]
    var history: [AssetHistoryEntry]

    var text: String {
        var lines = [
            "asset \(asset.id)  original \(asset.originalPath)  \(asset.pixelWidth)x\(asset.pixelHeight) orientation \(asset.orientation)"
        ]
        if chain.isEmpty {
            lines.append("shows: the original")
        } else {
            lines.append(
                "shows: adjustment \(chain[chain.count - 1].id), a chain of \(chain.count) layer(s), bottom first:")
            for (index, layer) in chain.enumerated() {
                lines.append("  \(index + 1). " + describe(layer))
            }
        }
        lines.append("")
        lines.append("history (oldest first):")
        if history.isEmpty { lines.append("  no changes yet") }
        let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: false)
        for entry in history {
            let job = entry.jobID.map { "job \($0)" } ?? "by hand"
            let after = entry.adjustmentID.map { "adjustment \($0)" } ?? "the original"
            let before = entry.previousAdjustmentID.map { "adjustment \($0)" } ?? "the original"
            let action = entry.action.padding(toLength: 11, withPad: " ", startingAt: 0)
            lines.append("  \(entry.at.formatted(timestamp))  \(action) \(job): \(before) -> \(after)")
        }
        lines.append("")
        lines.append("adjustments (append-only, oldest first):")
        for adjustment in adjustments {
            lines.append("  " + describe(adjustment))
        }
        return lines.joined(separator: "\n")
    }

    private func describe(_ adjustment: Adjustment) -> String {
        var text = "adjustment \(adjustment.id): \(adjustment.formatIdentifier) \(adjustment.formatVersion)"
        if adjustment.formatIdentifier == ApplePhotoFormat.identifier {
            text += " (\(ApplePhotoFormat.summary(of: adjustment.data) ?? "unreadable data"))"
        }
        text += adjustment.baseAdjustmentID.map { " on \($0)" } ?? " on the original"
        if let source = adjustment.rerenderOf { text += ", re-render of \(source)" }
        if let job = adjustment.jobID { text += ", job \(job)" }
        text += ", \(adjustment.renderedWidth)x\(adjustment.renderedHeight) \(adjustment.renderedPath)"
        return text
    }
}
