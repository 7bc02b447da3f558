import ArgumentParser
import DarkroomDatabase
import Foundation

extension Darkroom {
    struct Rendition: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Define the renditions every render writes beside its full-size JPEG (thumbnail, preview, share copy).",
            discussion:
                "Each is a version in darkroom.renditions: adding a name again makes its next version, and renders written with an older one count as stale (darkroom rerender --stale). The built-in display rendition (JPEG, 2048, everything kept) is what every render wrote before. docs/renditions.md.",
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a rendition, or the next version of one.")

            @OptionGroup var global: GlobalOptions

            @Argument(help: "Its name, part of each file's name: 1-32 lower-case letters, digits, - and _.")
            var name: String

            @Option(help: "jpeg, webp or avif.") var format: String
            @Option(
                name: .customLong("longest-side"),
                help: "The longest side in pixels; a smaller photo is never upscaled.")
            var longestSide: Int
            @Option(help: "1-100; the format's default when left out (jpeg 85, webp 80, avif 60).") var quality: Int?
            @Option(
                help:
                    "all, no-location (no GPS or anything else that places the photo) or none (only the colour profile)."
            )
            var metadata: String?
            @Option(help: "source (the original's profile) or srgb (converted, for viewers that ignore profiles).")
            var color: String?
            @Option(
                help:
                    "keep (the default for JPEG and AVIF: an Ultra HDR or ISO 21496-1 gain map, not with --color srgb) or drop."
            ) var hdr: String?

            func run() throws {
                try withExitCodes {
                    let connection = try Environment.connect(global)
                    try Environment.requireSchema(connection)
                    do {
                        let added = try RenditionCatalog(connection).add(
                            .init(
                                name: name, format: format, longestSide: longestSide, quality: quality,
                                metadata: metadata, color: color, hdr: hdr))
                        print("rendition \(added.name) version \(added.version)\t" + RenditionReport.settings(added))
                    } catch let error as RenditionCatalogError where error.code == .invalid {
                        throw CommandFailure.invalidInput("rendition add refused: \(error)")
                    }
                }
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Every version of every rendition, newest first; the current ones are what renders write.")

            @OptionGroup var global: GlobalOptions

            func run() throws {
                try withExitCodes {
                    let connection = try Environment.connect(global)
                    try Environment.requireSchema(connection)
                    print(RenditionReport.table(try RenditionCatalog(connection).versions()))
                }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Stop writing a rendition; its files go at the next prune.")

            @OptionGroup var global: GlobalOptions

            @Argument(help: "The rendition's name.") var name: String

            func run() throws {
                try withExitCodes {
                    let connection = try Environment.connect(global)
                    try Environment.requireSchema(connection)
                    do {
                        let version = try RenditionCatalog(connection).remove(name: name)
                        print("rendition \(name) removed (its version \(version) is no longer written)")
                    } catch let error as RenditionCatalogError where error.code == .invalid {
                        throw CommandFailure.invalidInput("rendition remove refused: \(error)")
                    }
                }
            }
        }
    }
}

/// `darkroom rendition list` as text.
enum RenditionReport {
    static func settings(_ rendition: RenditionDefinition) -> String {
        "\(rendition.format) \(rendition.longestSide) quality \(rendition.quality.map(String.init) ?? "of the render")"
            + " metadata \(rendition.metadata) color \(rendition.color) hdr \(rendition.hdr)"
    }

    static func table(_ versions: [RenditionDefinition]) -> String {
        let rows =
            [["NAME", "VERSION", "FORMAT", "LONGEST SIDE", "QUALITY", "METADATA", "COLOR", "HDR", "STATE", "ADDED BY"]]
            + versions.map { version in
                [
                    version.name, "\(version.version)", version.format, "\(version.longestSide)",
                    version.quality.map(String.init) ?? "render's", version.metadata, version.color, version.hdr,
                    version.isCurrent ? "current" : version.removedAt == nil ? "replaced" : "removed", version.addedBy,
                ]
            }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
