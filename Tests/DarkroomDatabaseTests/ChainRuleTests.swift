import DarkroomDatabase
import DarkroomTestSupport
import LibPQ
import Testing

/// The chain walk and the re-render scope live in SQL (definitions/chain.sql); the worker
/// asks them through AssetStore. These are their cases, against the server.
@Suite("Chains and re-render scope")
struct ChainRuleTests {
    /// Inserts an adjustment of `asset` and returns its id.
    func layer(_ asset: Int64, _ identifier: String, _ version: String, base: Int64?, on connection: DatabaseConnection)
        throws -> Int64
    {
        try connection.query(
            """
            INSERT INTO darkroom.adjustments (asset_id, format_identifier, format_version, data, base_adjustment_id,
                                              rendered_path, rendered_width, rendered_height, rendered_bytes)
            VALUES ($1, $2, $3, '\\x'::bytea, $4, 'renders/x.jpg', 1, 1, 1) RETURNING id
            """, [.int(asset), .text(identifier), .text(version), .optional(base, PostgresBind.int)])[0]["id"].decode(
                Int64.self)
    }

    func show(_ asset: Int64, _ adjustment: Int64?, on connection: DatabaseConnection) throws {
        _ = try connection.query(
            "UPDATE darkroom.assets SET current_adjustment_id = $2 WHERE id = $1",
            [.int(asset), .optional(adjustment, PostgresBind.int)])
    }

    @Test func aChainFollowsBasesFromTheTopDownAndListsBottomFirst() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let one = try layer(asset, "a.b", "1.0", base: nil, on: connection)
            let two = try layer(asset, "a.b", "1.0", base: one, on: connection)
            let three = try layer(asset, "a.b", "1.0", base: one, on: connection)
            let four = try layer(asset, "a.b", "1.0", base: three, on: connection)
            let store = AssetStore(connection)
            try show(asset, four, on: connection)
            #expect(
                try store.currentChain(of: asset).map(\.id) == [one, three, four],
                "2 was replaced by 3 and is not part of the look")
            try show(asset, two, on: connection)
            #expect(try store.currentChain(of: asset).map(\.id) == [one, two])
            try show(asset, nil, on: connection)
            #expect(try store.currentChain(of: asset).isEmpty)
            #expect(try store.currentChain(of: 9999).isEmpty, "an unknown asset has no chain")
        }
    }

    /// The Swift walk this replaced had to stop at missing bases and cycles; the schema makes
    /// both impossible, so the SQL walk always ends at the original.
    @Test func aBrokenOrCyclicChainCannotBeWritten() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let missing = #expect(throws: DatabaseError.self) {
                try layer(asset, "a.b", "1.0", base: 4242, on: connection)
            }
            #expect(missing?.sqlState == "23503", "a base that does not exist is refused")
            let other = try registerAsset(2, on: connection)
            let foreign = try layer(other, "a.b", "1.0", base: nil, on: connection)
            let crossed = #expect(throws: DatabaseError.self) {
                try layer(asset, "a.b", "1.0", base: foreign, on: connection)
            }
            #expect(crossed?.sqlState == "23503", "a base of another asset is refused")
            let one = try layer(asset, "a.b", "1.0", base: nil, on: connection)
            let two = try layer(asset, "a.b", "1.0", base: one, on: connection)
            let cycle = #expect(throws: DatabaseError.self) {
                try connection.query(
                    "UPDATE darkroom.adjustments SET base_adjustment_id = $2 WHERE id = $1", [.int(one), .int(two)])
            }
            #expect(cycle?.sqlState == "23001", "records are append-only, so no cycle can be made")
        }
    }

    @Test func aChainWithAnOlderLayerOfTheFormatIsReRendered() throws {
        try withQueueDatabase { _, connection in
            let asset = try registerAsset(1, on: connection)
            let bottom = try layer(asset, "io.darkroom.pipeline", "1.0", base: nil, on: connection)
            try show(
                asset, try layer(asset, "com.shinobicontrols.filster", "1.0", base: bottom, on: connection),
                on: connection)
            let store = AssetStore(connection)
            #expect(
                try store.rerenderNeeded(
                    assetID: asset, formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0"))
            #expect(
                try store.rerenderNeeded(assetID: asset, formatIdentifier: "io.darkroom.pipeline", belowVersion: nil))
            #expect(
                try store.rerenderNeeded(assetID: asset, formatIdentifier: nil, belowVersion: nil),
                "a whole-chain re-render")
            #expect(
                try store.rerenderNeeded(
                    assetID: asset, formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.0.1-rc.1"),
                "1.0 is below a pre-release of 1.0.1")
            #expect(
                try !store.rerenderNeeded(
                    assetID: asset, formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.0.0-rc.1"),
                "1.0 is not below a pre-release of itself")
        }
    }

    @Test func aChainAlreadyUpgradedOrWithoutTheFormatIsLeftAlone() throws {
        try withQueueDatabase { _, connection in
            let store = AssetStore(connection)
            let upgraded = try registerAsset(1, on: connection)
            try show(
                upgraded, try layer(upgraded, "io.darkroom.pipeline", "1.1.0", base: nil, on: connection),
                on: connection)
            #expect(
                try !store.rerenderNeeded(
                    assetID: upgraded, formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0"))
            let other = try registerAsset(2, on: connection)
            try show(
                other, try layer(other, "com.shinobicontrols.filster", "1.0", base: nil, on: connection), on: connection
            )
            #expect(
                try !store.rerenderNeeded(assetID: other, formatIdentifier: "io.darkroom.pipeline", belowVersion: nil))
            let original = try registerAsset(3, on: connection)
            #expect(
                try !store.rerenderNeeded(assetID: original, formatIdentifier: nil, belowVersion: nil),
                "it shows its original")
            // enqueue_rerender queues by the same rule: only the asset with an old pipeline layer.
            let old = try registerAsset(4, on: connection)
            try show(old, try layer(old, "io.darkroom.pipeline", "1.0", base: nil, on: connection), on: connection)
            let queued = try JobQueue(connection, logger: .quiet).enqueueRerender(
                formatIdentifier: "io.darkroom.pipeline", belowVersion: "1.1.0")
            #expect(queued == 1)
        }
    }
}
