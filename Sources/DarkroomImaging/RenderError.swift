import ByteStreams
import Foundation

/// Why a render could not be done: a stable code, a message that says what to do, the context
/// (the object, the operation, the sizes and limits concerned) and the cause underneath (the
/// codec's, the stream's or the system's error), kept typed. Whether a retry could help is
/// decided where the error is made, where it is known.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, snake_case: the worker records each under the failure code of the same spelling
    /// (`.codec` under the codec's own, `jpeg_damaged`), mapping by code in
    /// `FailureCode+Errors.swift`. A new code is its line here, a constructor below, and its
    /// `FailureCode`.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// libjpeg or libheif could not read or write a file: a damaged or unsupported input, a
        /// stream that failed under a codec (`codecError` says which).
        case codec
        case cropOutOfBounds = "crop_out_of_bounds"
        /// A rotation whose angle is not a finite number of sensible size, or whose window is empty or huge.
        case invalidRotation = "invalid_rotation"
        /// A filter operation reached the renderer without the LUT its name and version stand for.
        case filterNotLoaded = "filter_not_loaded"
        /// The render needs more memory than its budget (`bytesNeeded`, `memoryBudget`).
        case memoryBudgetExceeded = "memory_budget_exceeded"
        /// More pixels than the render's limit (`pixels`, `maxPixels`).
        case imageTooLarge = "image_too_large"
        /// The spill file for scratch tiles could not be made, written or read.
        case spillFailed = "spill_failed"
        /// The finished output could not be published (made durable and visible).
        case outputFailed = "output_failed"
        /// The caller asked the render to stop (the job was cancelled or lost its lease).
        case cancelled = "render_cancelled"
    }

    /// The error underneath.
    public enum Cause: Sendable, Equatable {
        case codec(CodecError)
        case stream(StreamError)
        /// A system call failed with this `errno`.
        case system(errno: Int32)
    }

    public var code: Code
    /// What happened and what to do about it.
    public var message: String
    /// Nothing about the same input will change on a retry.
    public var isPermanent: Bool
    /// The file or object read or written (a storage key or a path), or the spill's folder.
    public var object: String?
    /// The edit operation at fault, by its place in the edit's list.
    public var operationIndex: Int?
    /// What the render was doing: the operation (`crop`, `rotate`, `filter NAME`), or what
    /// needs the memory for `.memoryBudgetExceeded`.
    public var operation: String?
    /// The rectangle the operation asked for: a crop, a rotation's window.
    public var region: PixelRect?
    /// The image the operation applies to.
    public var canvas: PixelSize?
    /// A rotation's angle.
    public var degrees: Double?
    public var bytesNeeded: Int?
    public var memoryBudget: Int?
    public var pixels: Int?
    public var maxPixels: Int?
    public var cause: Cause?

    init(
        code: Code, message: String, isPermanent: Bool, object: String? = nil, operationIndex: Int? = nil,
        operation: String? = nil, region: PixelRect? = nil, canvas: PixelSize? = nil, degrees: Double? = nil,
        bytesNeeded: Int? = nil, memoryBudget: Int? = nil, pixels: Int? = nil, maxPixels: Int? = nil,
        cause: Cause? = nil
    ) {
        (self.code, self.message, self.isPermanent, self.object) = (code, message, isPermanent, object)
        (self.operationIndex, self.operation, self.region, self.canvas) = (operationIndex, operation, region, canvas)
        (self.degrees, self.bytesNeeded, self.memoryBudget) = (degrees, bytesNeeded, memoryBudget)
        (self.pixels, self.maxPixels, self.cause) = (pixels, maxPixels, cause)
    }

    public var description: String { message }

    /// The codec's error, when this is one.
    public var codecError: CodecError? {
        if case .codec(let error)? = cause { return error }
        return nil
    }
}

/// One constructor per code, each deciding whether a retry could help and writing the message.
extension RenderError {
    public static func codec(_ error: CodecError) -> RenderError {
        RenderError(
            code: .codec, message: error.description, isPermanent: error.isPermanent, object: error.object,
            cause: .codec(error))
    }

    public static func cropOutOfBounds(operationIndex: Int, crop: PixelRect, canvas: PixelSize) -> RenderError {
        RenderError(
            code: .cropOutOfBounds,
            message:
                "operation \(operationIndex) (crop): rectangle \(crop.width)×\(crop.height) at (\(crop.x), \(crop.y)) "
                + "does not fit the \(canvas) image it applies to; "
                + "keep x+width ≤ \(canvas.width) and y+height ≤ \(canvas.height)",
            isPermanent: true, operationIndex: operationIndex, operation: "crop", region: crop, canvas: canvas)
    }

    public static func invalidRotation(
        operationIndex: Int, degrees: Double, window: PixelRect, canvas: PixelSize
    ) -> RenderError {
        RenderError(
            code: .invalidRotation,
            message: "operation \(operationIndex) (rotate): \(degrees)° with window \(window) of the \(canvas) image "
                + "is not a turn darkroom can render; give a finite angle within ±\(Int(RenderGeometry.maxDegrees))° "
                + "and a window of 1 to \(RenderGeometry.maxSide) pixels a side, its corner within "
                + "\(RenderGeometry.maxSide) pixels of the image's",
            isPermanent: true, operationIndex: operationIndex, operation: "rotate", region: window, canvas: canvas,
            degrees: degrees)
    }

    public static func filterNotLoaded(operationIndex: Int, filter: String) -> RenderError {
        RenderError(
            code: .filterNotLoaded,
            message: "operation \(operationIndex) (filter \(filter)): its LUT was not loaded; "
                + "a render of a filter needs the table its name and version stand for",
            isPermanent: true, operationIndex: operationIndex, operation: "filter \(filter)")
    }

    /// `reason` says what needs the memory.
    public static func budgetTooSmall(needed: Int, budget: Int, reason: String) -> RenderError {
        RenderError(
            code: .memoryBudgetExceeded,
            message:
                "\(reason) needs \(ByteCount.format(needed)) but the memory budget is \(ByteCount.format(budget)); "
                + "raise --memory-budget to at least \(ByteCount.format(needed))",
            isPermanent: true, operation: reason, bytesNeeded: needed, memoryBudget: budget)
    }

    public static func imageTooLarge(pixels: Int, limit: Int) -> RenderError {
        RenderError(
            code: .imageTooLarge,
            message:
                "the image has \(pixels) pixels, more than the limit of \(limit); raise --max-pixels if it is genuine",
            isPermanent: true, pixels: pixels, maxPixels: limit)
    }

    /// The spill file in the folder `path` failed as `message` says; `errno` tells why, when a call failed.
    public static func spill(path: String, message: String, errno: Int32? = nil) -> RenderError {
        let reason = errno.map { ": \(String(cString: strerror($0)))" } ?? ""
        return RenderError(
            code: .spillFailed,
            message: "spill file in \(path): \(message)\(reason); check free space and permissions there",
            isPermanent: false, object: path, cause: errno.map { .system(errno: $0) })
    }

    /// Publishing failed; credentials the object store rejects reject every retry too.
    public static func output(_ error: StreamError) -> RenderError {
        RenderError(
            code: .outputFailed, message: "\(error)", isPermanent: error.code == .rejected, object: error.object,
            cause: .stream(error))
    }

    public static var cancelled: RenderError {
        RenderError(
            code: .cancelled, message: "the render was stopped before it finished; nothing was written",
            isPermanent: false)
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
