import DarkroomAdjustments
import DarkroomImaging
import DarkroomTestSupport
import Foundation
import Testing

/// The seam between adjustment data and the renderer: what a layer starts from, and every
/// editor's plan on it.
@Suite struct EditPlanTests {
    let size = PixelSize(width: 3024, height: 4032)
    let registry = EditorRegistry.standard

    @Test func aJPEGOriginalIsTurnedByItsEXIFOrientation() {
        let picture = Picture(
            size: size, start: .original(recorded: nil), decoderTurnsUpright: false, exifOrientation: .right)
        #expect(picture == Picture(size: size, orientation: .right, decoderTurn: .up))
    }

    /// A HEIF's decoder applies `irot`/`imir`; its EXIF orientation only says what they did.
    @Test func aHEIFOriginalIsUprightAlreadyAndItsTurnIsKept() {
        let picture = Picture(
            size: size, start: .original(recorded: nil), decoderTurnsUpright: true, exifOrientation: .right)
        #expect(picture == Picture(size: size, orientation: .up, decoderTurn: .right))
    }

    @Test func aRecordedOrientationWinsAndARenderIsUpright() {
        let recorded = Picture(
            size: size, start: .original(recorded: .down), decoderTurnsUpright: false, exifOrientation: .right)
        #expect(recorded.orientation == .down)
        let render = Picture(size: size, start: .render, decoderTurnsUpright: false, exifOrientation: .right)
        #expect(render == Picture(size: size, orientation: .up))
    }

    @Test func aPipelineEditKeepsThePicturesOrientationAndItsData() throws {
        let data = Array(#"{"operations":[{"op":"sepia","intensity":0.5}]}"#.utf8)
        let adjustment = EncodedAdjustment(formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0", data: data)
        let plan = try registry.plan(adjustment, picture: Picture(size: size, orientation: .left))
        #expect(plan.operations == [.sepia(intensity: 0.5)] && plan.orientation == .left && plan.warnings.isEmpty)
        #expect(plan.record == adjustment)
        // A re-render migrates the record to the version the editor writes.
        let replayed = try registry.plan(adjustment, picture: Picture(size: size, orientation: .left), upgrading: true)
        #expect(replayed.record.formatVersion == "1.0.0" && replayed.operations == plan.operations)
    }

    @Test func anAppleEditIsPlannedOnItsPictureInPhotosOwnOrientation() throws {
        let sidecar = try AppleSidecar.decode(
            Fixtures.bytes(of: Fixtures.root.appendingPathComponent("apple/B60C31AC-BE86-42C5-A383-A0A5710B18AE.plist"))
        )
        let adjustment = EncodedAdjustment(
            formatIdentifier: sidecar.formatIdentifier, formatVersion: sidecar.formatVersion, data: sidecar.data)
        // Not reproducible as a whole: refused by name, unless geometry only is asked for.
        #expect {
            try registry.plan(adjustment, picture: Picture(size: size, orientation: .up, decoderTurn: .right))
        } throws: { ($0 as? AdjustmentError)?.code == .appleAdjustmentUnsupported }
        let heif = try registry.plan(
            adjustment, picture: Picture(size: size, orientation: .up, decoderTurn: .right),
            options: EditOptions(leaveOutUnsupported: true))
        #expect(heif.orientation == .up)
        #expect(
            heif.warnings == [
                EditWarning(
                    code: "apple_geometry_only", message: "geometry only: left out Apple's SmartColor, SmartTone")
            ])
        // On a JPEG of the stored size, Photos' orientation is the whole turn.
        let jpeg = try registry.plan(
            adjustment, picture: Picture(size: size, orientation: .right),
            options: EditOptions(leaveOutUnsupported: true))
        #expect(jpeg.orientation == .right && jpeg.record == adjustment)
    }

    @Test func badDataIsRefusedByThePlanWithItsCode() {
        let adjustment = EncodedAdjustment(
            formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
            data: Array(#"{"operations":[{"op":"nope"}]}"#.utf8))
        #expect {
            try registry.plan(adjustment, picture: Picture(size: size, orientation: .up))
        } throws: { ($0 as? AdjustmentError)?.code == .unknownOperation }
        #expect {
            try registry.plan(
                EncodedAdjustment(formatIdentifier: "com.example.unknown", formatVersion: "1.0", data: []),
                picture: Picture(size: size, orientation: .up))
        } throws: { ($0 as? AdjustmentError)?.code == .unknownFormat }
    }
}
