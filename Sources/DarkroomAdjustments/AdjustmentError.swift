/// Adjustment data that cannot be rendered, with where in the data the problem is.
public struct AdjustmentError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case malformedData = "malformed_adjustment_data"
        case unknownOperation = "unknown_operation"
        case invalidParameter = "invalid_parameter"
        case unknownFormat = "unknown_format"
        case unsupportedVersion = "unsupported_format_version"
        case dataTooLarge = "adjustment_data_too_large"
        /// The format cannot express the operations it was asked to encode.
        case unrepresentable = "operations_not_representable"
        /// Apple Photos adjustments whose math is not public (`Effect 3DDramaticCool`, `SmartTone`…):
        /// rendering them would fake Apple's look, so the job fails unless geometry only is asked for.
        case appleAdjustmentUnsupported = "apple_adjustment_unsupported"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
