import DarkroomAdjustments
import EditVocabulary
import FuzzSupport

/// The input is a `com.apple.photo` adjustment data blob (raw DEFLATE of JSON; a seed is
/// Photos' own). Properties: a refusal is an `AdjustmentError`; a decoded edit holds at most
/// `maxAdjustments` entries, each of whose bytes stand in the inflated JSON as they were; a
/// plan on the master's picture either refuses with an `AdjustmentError` or keeps a window
/// inside the picture, an angle within ±π/4 and names every entry once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAAE(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let edit: ApplePhotoEdit
        do {
            edit = try ApplePhotoFormat.decode(bytes)
        } catch {
            requireTyped(error, AdjustmentError.self)
            return
        }
        require(edit.json.count <= ApplePhotoFormat.maxInflatedBytes, "inflated \(edit.json.count) bytes")
        require(edit.adjustments.count <= ApplePhotoFormat.maxAdjustments, "\(edit.adjustments.count) adjustments")
        for adjustment in edit.adjustments {
            require(contains(edit.json, adjustment.raw), "\(adjustment.identifier)'s bytes are not in the JSON")
        }
        let picture = PixelSize(width: edit.masterWidth, height: edit.masterHeight)
        for orientation in [Orientation.up, .right] {
            let plan: ApplePhotoPlan
            do {
                plan = try ApplePhotoPlan(
                    edit, pictureSize: picture, pictureOrientation: orientation, geometryOnly: true)
            } catch {
                requireTyped(error, AdjustmentError.self)
                continue
            }
            let geometry = plan.geometry
            require(PixelRect(size: picture).contains(geometry.window), "window \(geometry.window) outside \(picture)")
            require(abs(geometry.straightenAngle) <= ApplePhotoPlan.maxStraighten, "angle \(geometry.straightenAngle)")
            require(
                plan.unsupported.count + plan.ignored.count <= edit.adjustments.count,
                "more names than adjustments")
            let operations = geometry.operations()
            require(operations.count <= 1, "\(operations)")
        }
    }
}

func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
    return (0...(haystack.count - needle.count)).contains { start in
        haystack[start..<(start + needle.count)].elementsEqual(needle)
    }
}
