import DarkroomDatabase
import DarkroomImaging
import Foundation

/// `/filters`: every filter with its versions (`darkroom.filter_versions`, the view `darkroom
/// filter list` reads), newest first: the LUT's SHA-256 and size, who added it and when, and
/// how many assets' current chains use each version, so an operator sees what an upgrade would
/// reach before running `darkroom rerender --filter`.
enum FiltersPage {
    /// Hex digits of the SHA-256 shown; the whole hash is the cell's title.
    static let shortHash = 12

    static let empty: HTML = """
        <p>No filters. Add one with <span class="code">darkroom filter add NAME VERSION FILE.cube</span>.</p>
        """

    static func newest(_ version: FilterVersion) -> HTML {
        version.isNewest ? " <span class=\"note\">(newest)</span>" : ""
    }

    static func render(_ versions: [FilterVersion], session: WebSession) -> HTML {
        var names: [String] = []
        var byName: [String: [FilterVersion]] = [:]
        for version in versions {
            if byName[version.name] == nil { names.append(version.name) }
            byName[version.name, default: []].append(version)
        }
        let sections: [HTML] = names.map { name in
            let rows: [HTML] = byName[name]!.map { version in
                """
                <tr id="filter-\(name)@\(version.version)"><td>\(version.version)\(newest(version))</td>\
                <td><span class="code" title="\(version.sha256)">\(String(version.sha256.prefix(shortHash)))</span>\
                </td>\
                <td class="num">\(ByteCount.format(Int(version.size)))</td><td>\(version.addedBy)</td>\
                <td>\(Page.timestamp(version.addedAt))</td><td class="num">\(Page.number(Int(version.assets)))</td></tr>
                """
            }
            return """
                <h2 id="filter-\(name)">\(name)</h2>
                <table class="filters"><thead><tr><th>version</th><th>SHA-256</th><th class="num">size</th>\
                <th>added by</th><th>added</th><th class="num">assets</th></tr></thead><tbody>\(rows)</tbody></table>
                """
        }
        return Page.document(
            title: "Filters", session: session, current: "/filters",
            """
            <h1>Filters</h1>
            \(versions.isEmpty ? empty : HTML("""
                <p class="note">Assets: how many assets' current chain has a layer using the version. \
                An edit that names no version gets the newest release.</p>\(sections)
                """))
            """)
    }
}
