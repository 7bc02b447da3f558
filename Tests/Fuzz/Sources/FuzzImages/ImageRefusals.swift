import DarkroomImaging
import FuzzSupport
import JPEGTurbo
import LibHeif

/// What a worker may refuse a photo with: the codec's error blaming the data (never misuse, and
/// never I/O: the fuzz source cannot fail) at an offset inside the input, or the planner's
/// refusal of an image too large for its pixel limit or budget.
public func checkImageRefusal(_ error: any Error, inputSize: Int) {
    switch error {
    case let error as RenderError:
        switch (error.code, error.codecError) {
        case (.codec, let codec?): checkImageRefusal(codec.cause, inputSize: inputSize)
        case (.imageTooLarge, _), (.memoryBudgetExceeded, _): break
        default: require(false, "the planner refused with \(error)")
        }
    case let error as JPEGError:
        require(error.isDamagedData || error.code == .unsupported, "refused with code \(error.code): \(error)")
        require(!error.message.isEmpty, "an error without a message")
        if let offset = error.byteOffset {
            require((0...inputSize).contains(offset), "error at byte \(offset) of a \(inputSize)-byte input")
        }
    case let error as HEIFError:
        require(
            [.corrupt, .damaged, .unsupported, .tooLarge].contains(error.code),
            "refused with code \(error.code): \(error)")
        require(!error.message.isEmpty, "an error without a message")
    default:
        require(false, "threw \(type(of: error)) (\(error)), expected a codec's or the planner's error")
    }
}
