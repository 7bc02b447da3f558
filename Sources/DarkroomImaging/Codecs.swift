import LibHeif

/// The codec libraries as a whole.
public enum Codecs {
    /// Starts every codec library that reads files when it starts (libheif loads its decoder and
    /// encoder plugins), so that a process can then be forbidden to open any.
    public static func start() {
        HEIFLibrary.start()
    }
}
