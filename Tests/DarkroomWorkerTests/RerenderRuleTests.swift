import DarkroomDatabase
import Testing

@testable import DarkroomWorker

/// What a re-render that the database found nothing for says (the rule itself is SQL's:
/// ChainRuleTests).
@Suite struct RerenderRuleTests {
    func layer(_ id: Int64, _ identifier: String, _ version: String, base: Int64?) -> Adjustment {
        Adjustment(
            id: id, assetID: 7, formatIdentifier: identifier, formatVersion: version, data: [], baseAdjustmentID: base,
            renderedPath: "renders/7/\(id).jpg", renderedWidth: 1, renderedHeight: 1, renderedBytes: 1)
    }

    @Test func theOutcomeNamesWhyThereIsNothingToDo() {
        let upgraded = [layer(3, "io.darkroom.pipeline", "1.1.0", base: nil)]
        let reason = RenderJobRunner.nothingToRerender(
            upgraded, identifier: "io.darkroom.pipeline", below: "1.1.0", assetID: 7)
        #expect(reason.contains("no longer has a layer in io.darkroom.pipeline below 1.1.0"))
        #expect(
            RenderJobRunner.nothingToRerender([], identifier: nil, below: nil, assetID: 7).contains(
                "shows its original"))
        #expect(
            RenderJobRunner.nothingToRerender([], identifier: "io.darkroom.pipeline", below: nil, assetID: 7).contains(
                "shows its original"))
    }
}
