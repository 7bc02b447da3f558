import DarkroomQueue
@testable import DarkroomWorker
import Testing

/// When a re-render job finds nothing to do: decided from the chain alone.
@Suite struct RerenderRuleTests {
    func layer(_ id: Int64, _ identifier: String, _ version: String, base: Int64?) -> Adjustment {
        Adjustment(id: id, assetID: 7, formatIdentifier: identifier, formatVersion: version, data: [], baseAdjustmentID: base,
                   renderedPath: "renders/7/\(id).jpg", renderedWidth: 1, renderedHeight: 1, renderedBytes: 1)
    }

    @Test func aChainWithAnOlderLayerOfTheFormatIsReRendered() {
        let chain = [layer(1, "io.darkroom.pipeline", "1.0", base: nil), layer(2, "com.shinobicontrols.filster", "1.0", base: 1)]
        #expect(RenderJobRunner.nothingToRerender(chain, identifier: "io.darkroom.pipeline", below: "1.1.0", assetID: 7) == nil)
        #expect(RenderJobRunner.nothingToRerender(chain, identifier: "io.darkroom.pipeline", below: nil, assetID: 7) == nil)
        #expect(RenderJobRunner.nothingToRerender(chain, identifier: nil, below: nil, assetID: 7) == nil, "a whole-chain re-render")
    }

    @Test func aChainAlreadyUpgradedOrWithoutTheFormatIsLeftAlone() throws {
        let upgraded = [layer(3, "io.darkroom.pipeline", "1.1.0", base: nil)]
        let reason = try #require(RenderJobRunner.nothingToRerender(upgraded, identifier: "io.darkroom.pipeline", below: "1.1.0", assetID: 7))
        #expect(reason.contains("no longer has a layer in io.darkroom.pipeline below 1.1.0"))
        let other = [layer(4, "com.shinobicontrols.filster", "1.0", base: nil)]
        #expect(RenderJobRunner.nothingToRerender(other, identifier: "io.darkroom.pipeline", below: nil, assetID: 7) != nil)
        #expect(RenderJobRunner.nothingToRerender([], identifier: nil, below: nil, assetID: 7)?.contains("shows its original") == true)
    }
}
