import DarkroomDatabase
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import LibPQ
import Testing

/// `--hdr keep|drop` end to end: a worker's render of a gain-map original carries the map, and
/// its record and the asset's chain say so; a photo without one, and `--hdr drop`, do not.
@Suite(.serialized) struct HDRJobTests {
    @Test func aWorkerKeepsTheGainMapAndTheRecordSaysSo() throws {
        try DarkroomCommand.withMigratedLibrary("hdr") { command in
            let (url, storage) = (command.databaseURL, command.storage)
            func importAsset(_ path: String) throws -> Int64 {
                let imported = try command.run("import", path)
                try #require(imported.status == 0, "\(imported.stderr)")
                return try #require(Int64(imported.stdout.split(separator: "\t")[0].dropFirst("asset ".count)))
            }
            let apple = try importAsset(Fixtures.root.appendingPathComponent("gainmaps/apple_gainmap_new.jpg").path)
            let plain = try importAsset(Fixtures.exifSample("canon_hdr_NO.jpg").path)
            let samsung = try importAsset(ToneMapFixtures.samsung.path)
            let connection = try DatabaseConnection(url)
            func edit(_ asset: Int64) throws -> Int64 {
                try connection.query(
                    "SELECT darkroom.enqueue_edit($1, 'io.darkroom.pipeline', '1.0.0', $2::text) AS id",
                    [.int(asset), .text(#"{"operations":[{"op":"crop","x":10,"y":20,"width":200,"height":300}]}"#)]
                )[0]["id"].decode(Int64.self)
            }
            func record(_ job: Int64) throws -> (hdr: Any?, path: String) {
                let row = try connection.query(
                    """
                    SELECT a.rendered_with::text AS json, a.rendered_path FROM darkroom.jobs AS j
                      JOIN darkroom.adjustments AS a ON a.id = j.adjustment_id WHERE j.id = $1
                    """, [.int(job)])[0]
                let json = try row["json"].decode(String.self)
                let provenance = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
                return (provenance?["hdr"], try row["rendered_path"].decode(String.self))
            }
            let kept = try edit(apple)
            let none = try edit(plain)
            let iso = try edit(samsung)
            let drained = try command.run("worker", "--drain")
            try #require(drained.status == 0, "\(drained.stderr)")

            let keptRecord = try record(kept)
            let hdr = try #require(keptRecord.hdr as? [String: Any], "\(String(describing: keptRecord.hdr))")
            #expect(hdr["gain_map"] as? String == "apple")
            #expect(hdr["map_width"] as? Int == 100 && hdr["map_height"] as? Int == 150)
            let rendered = try Fixtures.bytes(of: URL(fileURLWithPath: storage + "/" + keptRecord.path))
            #expect(try SourceGainMap.find(in: rendered, objectName: keptRecord.path)?.size?.width == 100)
            #expect(try record(none).hdr as? Bool == false)
            // Samsung's HEIC: the map its ISO 21496-1 tmap names, a quarter of the crop per side.
            let isoHDR = try #require(try record(iso).hdr as? [String: Any])
            #expect(isoHDR["gain_map"] as? String == "iso_21496_1")
            #expect(isoHDR["map_width"] as? Int == 50 && isoHDR["map_height"] as? Int == 75)
            let store = AssetStore(connection)
            #expect(try store.currentChain(of: apple).last?.carriesHDR == true)
            #expect(try store.currentChain(of: plain).last?.carriesHDR == false)

            // --hdr drop: today's standard-range render, and the record says so.
            let dropped = try edit(apple)
            let drainedAgain = try command.run("worker", "--drain", "--hdr", "drop")
            try #require(drainedAgain.status == 0, "\(drainedAgain.stderr)")
            let droppedRecord = try record(dropped)
            #expect(droppedRecord.hdr as? Bool == false)
            let standard = try Fixtures.bytes(of: URL(fileURLWithPath: storage + "/" + droppedRecord.path))
            #expect(try SourceGainMap.find(in: standard, objectName: droppedRecord.path) == nil)
            #expect(try store.currentChain(of: apple).last?.carriesHDR == false)
            // The map left out on request is no stray trailer: the job records no warning.
            let warnings = try connection.query(
                "SELECT warnings::text AS w FROM darkroom.jobs WHERE id = $1", [.int(dropped)])[0]["w"].decode(
                    String.self)
            #expect(warnings == "[]")
        }
    }
}
