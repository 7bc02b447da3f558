/// What a render applies to a picture, decided once the picture's header is read: an edit
/// whose geometry depends on the picture's size (an Apple Photos crop) is planned only then.
public struct PictureEdit: Sendable, Equatable {
    public var operations: [ImageOperation]
    /// Applied first, to the rows the decoder delivers.
    public var orientation: Orientation

    public init(operations: [ImageOperation], orientation: Orientation) {
        self.operations = operations
        self.orientation = orientation
    }
}
