import ArgumentParser
import DarkroomDatabase
import DarkroomImport
import Foundation

extension Darkroom {
    struct Filter: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add and list filters: versioned .cube LUTs an edit names ({\"op\":\"filter\",\"name\":...}).",
            subcommands: [Add.self, List.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Store a .cube LUT as a new version of a filter.",
                discussion:
                    "The file is read first (a 3D LUT of size 2-65 or a 1D LUT), stored under its SHA-256 and recorded in darkroom.filters. A version is never changed: a new LUT is a new version."
            )

            @OptionGroup var global: GlobalOptions

            @Argument(help: "The filter's name: letters, digits, dots, hyphens and underscores.")
            var name: String

            @Argument(help: "A semantic version, higher than the ones it replaces (e.g. 1.1.0).")
            var version: String

            @Argument(help: "The .cube file.")
            var file: String

            func run() throws {
                try withExitCodes {
                    let connection = try Environment.connect(global)
                    try Environment.requireSchema(connection)
                    let storage = try Environment.storage(global, create: true)
                    do {
                        let added = try FilterImporter(storage: storage, connection: connection)
                            .add(name: name, version: version, file: file)
                        print(
                            "filter \(added.name) \(added.version)\t\(added.table)\tsha256 \(added.sha256)\t\(added.key)"
                        )
                    } catch let error as ImportError {
                        throw CommandFailure.invalidInput("filter add refused: \(error)")
                    } catch let error as FilterCatalogError where error.code != .database {
                        throw CommandFailure.invalidInput("filter add refused: \(error)")
                    }
                }
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Every filter version, newest first, with how many assets show it now.")

            @OptionGroup var global: GlobalOptions

            func run() throws {
                try withExitCodes {
                    let connection = try Environment.connect(global)
                    try Environment.requireSchema(connection)
                    let versions = try FilterCatalog(connection).versions()
                    print(FilterReport.table(versions))
                }
            }
        }
    }
}

/// `darkroom filter list` as text: one row per version.
enum FilterReport {
    /// `darkroom rerender --filter NAME --below-version V --dry-run`: one line per old version.
    static func upgrade(_ counts: [FilterUpgradeCount], filter: String, below: String) -> String {
        guard !counts.isEmpty else { return "no asset shows \(filter) below \(below); nothing to re-render" }
        return counts.map { "\(filter) \($0.version)\t\($0.assets) asset(s) would be re-rendered" }
            .joined(separator: "\n") + "\ndry run: nothing queued"
    }

    static func table(_ versions: [FilterVersion]) -> String {
        guard !versions.isEmpty else { return "no filters; add one with darkroom filter add NAME VERSION FILE.cube" }
        let rows =
            [["NAME", "VERSION", "ASSETS", "SIZE", "SHA-256", "ADDED BY", "ADDED AT"]]
            + versions.map { version in
                [
                    version.name, version.version + (version.isNewest ? " (newest)" : ""), "\(version.assets)",
                    "\(version.size)", String(version.sha256.prefix(12)), version.addedBy,
                    ISO8601DateFormatter().string(from: version.addedAt),
                ]
            }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
