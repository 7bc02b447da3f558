/// TIFF's field types, as every reader of a TIFF structure in darkroom (EXIF, the MPF index,
/// Apple's MakerNote) sizes them.
public enum TIFFType {
    /// Bytes per value for the twelve TIFF 6.0 types, plus IFD (13) from the TIFF supplement
    /// (an offset, like LONG); nil for a type TIFF does not define.
    public static func byteSize(_ type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }
}
