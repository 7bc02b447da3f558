import DarkroomAdjustments
import Testing

@Suite struct BaseImageRuleTests {
    let registry = EditorRegistry.standard

    @Test func aFirstEditStartsFromTheOriginal() {
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: nil) == .original)
    }

    @Test func theSameEditorReplacesItsOwnEdit() {
        let current = CurrentAdjustment(id: 7, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0")
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: current) == .original)
    }

    @Test func replacingTheTopLayerOfAChainKeepsTheLayersBeneath() {
        let top = CurrentAdjustment(
            id: 12, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", baseAdjustmentID: 11)
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: top) == .rendered(adjustmentID: 11))
    }

    @Test func anotherEditorLayersOnTopAndKeepsTheBase() {
        let current = CurrentAdjustment(id: 7, formatIdentifier: "com.shinobicontrols.filster", formatVersion: "1.0")
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: current) == .rendered(adjustmentID: 7))
    }

    @Test func anUnreadableVersionOfTheSameFormatIsLayeredNotGuessed() {
        // Data from a newer editor than this worker's cannot be replaced by re-rendering it.
        let newer = CurrentAdjustment(id: 9, formatIdentifier: "io.darkroom.pipeline", formatVersion: "2.0.0")
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: newer) == .rendered(adjustmentID: 9))
        let garbage = CurrentAdjustment(id: 10, formatIdentifier: "io.darkroom.pipeline", formatVersion: "one")
        #expect(registry.baseImage(forEditIn: "io.darkroom.pipeline", over: garbage) == .rendered(adjustmentID: 10))
    }
}
