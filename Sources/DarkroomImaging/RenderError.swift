import ByteStreams
import Foundation
import JPEGTurbo
import LibHeif

/// Why a render could not be done. Every case says whether retrying could help.
public enum RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    case jpeg(JPEGError)
    /// A HEIF or AVIF input libheif could not read or decode.
    case heif(HEIFError)
    case cropOutOfBounds(operationIndex: Int, crop: PixelRect, canvas: PixelSize)
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
        // An object store that rejects the credentials rejects every retry too.
        case .jpeg(let error): error.cause?.code == .rejected || (error.code != .io && error.code != .outOfMemory)
        case .heif(let error):
            error.cause?.code == .rejected || (error.code != .io && error.code != .outOfMemory && error.code != .misuse)
        case .cropOutOfBounds, .budgetTooSmall, .imageTooLarge: true
        case .output(let error): error.code == .rejected
        case .spill, .cancelled: false
        }
    }

    public var code: String {
        switch self {
        case .jpeg(let error): "jpeg_\(error.code.rawValue)"
        case .heif(let error): "heif_\(error.code.rawValue)"
        case .cropOutOfBounds: "crop_out_of_bounds"
        case .budgetTooSmall: "memory_budget_exceeded"
        case .imageTooLarge: "image_too_large"
        case .spill: "spill_failed"
        case .output: "output_failed"
        case .cancelled: "render_cancelled"
        }
    }

    public var description: String {
        switch self {
        case .jpeg(let error):
            return error.description
        case .heif(let error):
            return error.description
        case .cropOutOfBounds(let index, let crop, let canvas):
            return "operation \(index) (crop): rectangle \(crop.width)×\(crop.height) at (\(crop.x), \(crop.y)) "
                + "does not fit the \(canvas) image it applies to; keep x+width ≤ \(canvas.width) and y+height ≤ \(canvas.height)"
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
}

/// A decoder's error about the bytes it read, whatever their format: what a caller needs to
/// blame the right object (its name), and to tell damage from everything else.
public enum InputDecodeError: Error, Sendable, Equatable {
    case jpeg(JPEGError)
    case heif(HEIFError)

    public var objectName: String {
        switch self {
        case .jpeg(let error): error.path
        case .heif(let error): error.path
        }
    }

    /// The bytes themselves are bad: truncated, corrupt, not an image.
    public var isDamagedData: Bool {
        switch self {
        case .jpeg(let error): error.isDamagedData
        case .heif(let error): error.isDamagedData
        }
    }

    /// A valid file of a kind darkroom does not render.
    public var isUnsupported: Bool {
        switch self {
        case .jpeg(let error): error.code == .unsupported
        case .heif(let error): error.code == .unsupported
        }
    }

    public var message: String {
        switch self {
        case .jpeg(let error): error.message
        case .heif(let error): error.message
        }
    }

    public var byteOffset: Int? {
        if case .jpeg(let error) = self { return error.byteOffset }
        return nil
    }

    /// What to do about an unsupported file.
    public var conversionAdvice: String {
        switch self {
        case .jpeg: "convert it to an 8-bit RGB or greyscale JPEG first"
        case .heif: "convert it to JPEG first"
        }
    }

    public var renderError: RenderError {
        switch self {
        case .jpeg(let error): .jpeg(error)
        case .heif(let error): .heif(error)
        }
    }
}

extension RenderError {
    /// The decoder's error, when this is one.
    public var inputDecodeError: InputDecodeError? {
        switch self {
        case .jpeg(let error): .jpeg(error)
        case .heif(let error): .heif(error)
        default: nil
        }
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
