import DarkroomDatabase
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// Renditions as data: versions, SQL's defaults and refusals, removal, and the records of what
/// each render wrote, read back through `darkroom.adjustment_renditions`.
@Suite("Rendition catalogue")
struct RenditionCatalogTests {
    @Test func aLibraryThatDefinesNothingWritesTheDisplayCopyAsBefore() throws {
        try withQueueDatabase { _, connection in
            let current = try RenditionCatalog(connection).current()
            #expect(current.map(\.name) == ["display"])
            let display = try #require(current.first)
            #expect(display.version == 1 && display.format == "jpeg" && display.longestSide == 2048)
            #expect(display.quality == nil && display.metadata == "all" && display.hdr == "keep")
        }
    }

    @Test func addingANameAgainMakesItsNextVersionWithTheFormatsDefaults() throws {
        try withQueueDatabase { _, connection in
            let catalog = RenditionCatalog(connection)
            let first = try catalog.add(.init(name: "thumb", format: "webp", longestSide: 320))
            #expect(first.version == 1 && first.quality == 80 && first.hdr == "drop" && first.metadata == "all")
            let second = try catalog.add(
                .init(name: "thumb", format: "avif", longestSide: 360, quality: 50, metadata: "none", color: "srgb"))
            // A map is made for the source's colours: an sRGB copy is standard range unless asked.
            #expect(second.version == 2 && second.quality == 50 && second.color == "srgb" && second.hdr == "drop")
            let preview = try catalog.add(.init(name: "preview", format: "avif", longestSide: 1440))
            #expect(preview.quality == 60 && preview.hdr == "keep", "an AVIF keeps HDR as an ISO 21496-1 gain map")
            let current = try catalog.current()
            #expect(current.first { $0.name == "thumb" }?.version == 2)
            let listed = try catalog.versions().filter { $0.name == "thumb" }
            #expect(listed.map(\.version) == [2, 1] && listed.map(\.isCurrent) == [true, false])
            // A version is never changed.
            #expect(throws: DatabaseError.self) {
                try connection.query("UPDATE darkroom.renditions SET longest_side = 100 WHERE name = 'thumb'")
            }
        }
    }

    @Test(
        arguments: [
            ("thumb", "webp", 0, nil, nil, nil, "a longest side of 0"),
            ("thumb", "webp", 20000, nil, nil, nil, "16 to 16383"),
            ("preview", "avif", 20000, nil, nil, nil, "not one an AVIF can have"),
            ("thumb", "jpeg", 320, 0, nil, nil, "quality 0"),
            ("thumb", "jpeg", 320, 101, nil, nil, "quality 101"),
            ("thumb", "webp", 320, nil, "keep", nil, "cannot keep HDR in a WebP"),
            ("thumb", "gif", 320, nil, nil, nil, "not one darkroom writes"),
            ("Thumb.jpg", "jpeg", 320, nil, nil, nil, "is not a name"),
            ("thumb", "jpeg", 320, nil, "keep", "srgb", "--color srgb cannot keep it"),
            ("display", "webp", 320, nil, nil, nil, "display rendition is a JPEG"),
            ("thumb", "jpeg", 320, nil, nil, "p3", "color 'p3' is not a choice"),
            ("layer2", "jpeg", 320, nil, nil, nil, "is not a name"),
        ] as [(String, String, Int, Int?, String?, String?, String)])
    func badSettingsAreRefusedWithTheReason(
        name: String, format: String, side: Int, quality: Int?, hdr: String?, color: String?, reason: String
    ) throws {
        try withQueueDatabase { _, connection in
            let error = #expect(throws: RenditionCatalogError.self) {
                try RenditionCatalog(connection).add(
                    .init(name: name, format: format, longestSide: side, quality: quality, color: color, hdr: hdr))
            }
            #expect(error?.code == .invalid)
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
            let names = try RenditionCatalog(connection).current().map(\.name)
            #expect(names == ["display"])
        }
    }

    @Test func removingANameStopsItAndKeepsItsVersionsForTheRecords() throws {
        try withQueueDatabase { _, connection in
            let catalog = RenditionCatalog(connection)
            _ = try catalog.add(.init(name: "share", format: "jpeg", longestSide: 2048, metadata: "no-location"))
            let removed = try catalog.remove(name: "share")
            #expect(removed == 1)
            let current = try catalog.current()
            #expect(current.map(\.name) == ["display"])
            let versions = try catalog.versions()
            #expect(versions.first { $0.name == "share" }?.removedAt != nil)
            #expect(throws: RenditionCatalogError.self) { try catalog.remove(name: "share") }
            #expect(throws: RenditionCatalogError.self) { try catalog.remove(name: "display") }
            // Adding it again starts writing it again, as its next version.
            let again = try catalog.add(.init(name: "share", format: "jpeg", longestSide: 1024))
            #expect(again.version == 2)
        }
    }

    /// Queues and claims a job on a new asset and completes it with one layer whose record says
    /// `renderedWith`; returns the asset.
    @discardableResult
    static func complete(on connection: DatabaseConnection, renderedWith: String) throws -> Int64 {
        let queue = JobQueue(connection, logger: .quiet)
        let asset = try registerAsset(1, on: connection)
        _ = try queue.enqueueSample(assetID: asset)
        let job = try #require(try queue.claim(workerID: "w1", limit: 1, lease: .seconds(60)).first)
        var layer = sampleAdjustment(for: job)
        layer.renderedWith = renderedWith
        try queue.complete(job, with: JobResult(.layers([layer]), expectedCurrent: nil))
        return asset
    }

    @Test func eachRecordListsTheRenditionsItsRenderWroteAndWhetherTheyAreCurrent() throws {
        try withQueueDatabase { _, connection in
            let catalog = RenditionCatalog(connection)
            _ = try catalog.add(.init(name: "thumb", format: "webp", longestSide: 320))
            let asset = try Self.complete(
                on: connection,
                renderedWith:
                    #"{"renditions":[{"name":"display","version":1,"format":"jpeg","path":"renders/1/1.display.jpg","width":2048,"height":1536,"bytes":400000},"#
                    + #"{"name":"thumb","version":1,"format":"webp","path":"renders/1/1.thumb.webp","width":320,"height":240,"bytes":9000}]}"#
            )
            _ = try catalog.add(.init(name: "thumb", format: "webp", longestSide: 400))

            let rows = try connection.query(
                "SELECT name, version, format, path, width, bytes, state FROM darkroom.adjustment_renditions WHERE asset_id = $1",
                [.int(asset)])
            #expect(rows.map { $0["name"].string } == ["display", "thumb"])
            #expect(rows.map { $0["state"].string } == ["current", "stale"])
            #expect(rows[1]["path"].string == "renders/1/1.thumb.webp" && rows[1]["bytes"].int64 == 9000)
        }
    }

    @Test func aRecordNamingARenditionVersionThatDoesNotExistIsRefused() throws {
        try withQueueDatabase { _, connection in
            #expect(throws: (any Error).self) {
                try Self.complete(
                    on: connection,
                    renderedWith:
                        #"{"renditions":[{"name":"thumb","version":7,"format":"webp","path":"renders/1/1.thumb.webp","width":1,"height":1,"bytes":1}]}"#
                )
            }
            let records = try scalar(connection, "SELECT count(*) FROM darkroom.adjustments").int
            #expect(records == 0)
        }
    }
}
