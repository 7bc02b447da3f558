/// One transformative property of an image item (`irot`, `imir`, `clap`), in the order the file
/// applies them to the coded image to give the displayed one. darkroom applies them itself
/// (DarkroomImaging's orientation and crop stages), so that a grid image can be decoded a row
/// of tiles at a time: libheif decodes the tiles as coded.
public enum HEIFTransform: Sendable, Equatable {
    /// `irot`: turned counter-clockwise by 90, 180 or 270 degrees.
    case rotation(counterClockwiseDegrees: Int)
    /// `imir`: flipped left to right (`leftToRight`), or top to bottom.
    case mirror(leftToRight: Bool)
    /// `clap`: whole pixels removed from each edge of the image as it is at this step (libheif
    /// rounds the clean aperture's fractions).
    case crop(left: Int, top: Int, right: Int, bottom: Int)
}

/// How a grid image is cut: `columns` × `rows` tiles of `tileWidth` × `tileHeight` coded pixels,
/// the last column and row cut to the image's coded size.
public struct HEIFTiling: Sendable, Equatable {
    public var columns: Int
    public var rows: Int
    public var tileWidth: Int
    public var tileHeight: Int
    /// The compressed bytes of the largest tile, which libheif copies out of the file to decode it
    /// (for an image tiled inside one item, `unci` or `tili`, that item).
    public var largestTileBytes: Int

    public init(columns: Int, rows: Int, tileWidth: Int, tileHeight: Int, largestTileBytes: Int) {
        self.columns = columns
        self.rows = rows
        self.tileWidth = tileWidth
        self.tileHeight = tileHeight
        self.largestTileBytes = largestTileBytes
    }
}
