import ByteStreams
import Foundation

/// Why a render could not be done. Every case says whether retrying could help.
public enum RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file libjpeg or libheif could not read or write: a damaged or unsupported input, a
    /// stream that failed under a codec.
    case codec(CodecError)
    case cropOutOfBounds(operationIndex: Int, crop: PixelRect, canvas: PixelSize)
    /// A rotation whose angle is not a finite number of sensible size, or whose window is empty or huge.
    case invalidRotation(operationIndex: Int, degrees: Double, window: PixelRect, canvas: PixelSize)
    /// A filter operation reached the renderer without the LUT its name and version stand for.
    case filterNotLoaded(operationIndex: Int, filter: String)
    case budgetTooSmall(needed: Int, budget: Int, reason: String)
    case imageTooLarge(pixels: Int, limit: Int)
    case spill(path: String, message: String)
    /// The finished output could not be published (made durable and visible).
    case output(StreamError)
    /// The caller asked the render to stop (the job was cancelled or lost its lease).
    case cancelled

    /// Nothing about the same input will change on a retry.
    public var isPermanent: Bool {
        switch self {
        case .codec(let error): error.isPermanent
        case .cropOutOfBounds, .invalidRotation, .filterNotLoaded, .budgetTooSmall, .imageTooLarge: true
        case .output(let error): error.code == .rejected
        case .spill, .cancelled: false
        }
    }

    public var code: String {
        switch self {
        case .codec(let error): "\(error.format.rawValue)_\(error.code.rawValue)"
        case .cropOutOfBounds: "crop_out_of_bounds"
        case .invalidRotation: "invalid_rotation"
        case .filterNotLoaded: "filter_not_loaded"
        case .budgetTooSmall: "memory_budget_exceeded"
        case .imageTooLarge: "image_too_large"
        case .spill: "spill_failed"
        case .output: "output_failed"
        case .cancelled: "render_cancelled"
        }
    }

    public var description: String {
        switch self {
        case .codec(let error):
            return error.description
        case .cropOutOfBounds(let index, let crop, let canvas):
            return "operation \(index) (crop): rectangle \(crop.width)×\(crop.height) at (\(crop.x), \(crop.y)) "
                + "does not fit the \(canvas) image it applies to; keep x+width ≤ \(canvas.width) and y+height ≤ \(canvas.height)"
        case .invalidRotation(let index, let degrees, let window, let canvas):
            return "operation \(index) (rotate): \(degrees)° with window \(window) of the \(canvas) image "
                + "is not a turn darkroom can render; give a finite angle within ±\(Int(RenderGeometry.maxDegrees))° "
                + "and a window of 1 to \(RenderGeometry.maxSide) pixels a side, its corner within "
                + "\(RenderGeometry.maxSide) pixels of the image's"
        case .filterNotLoaded(let index, let filter):
            return "operation \(index) (filter \(filter)): its LUT was not loaded; "
                + "a render of a filter needs the table its name and version stand for"
        case .budgetTooSmall(let needed, let budget, let reason):
            return "\(reason) needs \(ByteCount.format(needed)) but the memory budget is \(ByteCount.format(budget)); "
                + "raise --memory-budget to at least \(ByteCount.format(needed))"
        case .imageTooLarge(let pixels, let limit):
            return
                "the image has \(pixels) pixels, more than the limit of \(limit); raise --max-pixels if it is genuine"
        case .spill(let path, let message):
            return "spill file in \(path): \(message); check free space and permissions there"
        case .output(let error):
            return "\(error)"
        case .cancelled:
            return "the render was stopped before it finished; nothing was written"
        }
    }

    /// The codec's error, when this is one.
    public var codecError: CodecError? {
        if case .codec(let error) = self { return error }
        return nil
    }
}

/// Byte sizes for people: 64 MiB, 1.5 GiB.
public enum ByteCount {
    public static func format(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) \(units[unit])" : "\(rounded) \(units[unit])"
    }

    /// Parses "64MiB", "64M", "1.5GiB", "1048576"; nil when malformed or not positive.
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let number = Double(digits), number > 0 else { return nil }
        let multipliers: [String: Double] = [
            "": 1, "b": 1,
            "k": 1024, "kb": 1000, "kib": 1024,
            "m": 1_048_576, "mb": 1_000_000, "mib": 1_048_576,
            "g": 1_073_741_824, "gb": 1_000_000_000, "gib": 1_073_741_824,
        ]
        let suffix = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard let multiplier = multipliers[suffix] else { return nil }
        let bytes = number * multiplier
        guard bytes >= 1, bytes < Double(Int.max) else { return nil }
        return Int(bytes)
    }
}
