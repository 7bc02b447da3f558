/// How a picture is coded: always lossy (VP8), one thread, libwebp's default preset otherwise.
public struct WebPSettings: Sendable, Equatable {
    public static let qualityRange = 1...100
    public static let methodRange = 0...6
    /// 3: on photos at 1440 and 320 px, q80, the bytes and PSNR of 4, faster; 2 is 3–5 % larger, 6 twice as slow.
    public static let defaultMethod = 3

    /// libwebp's quality factor, 1 (smallest) to 100 (best).
    public var quality: Int
    /// libwebp's effort, 0 (fastest) to 6 (smallest file).
    public var method: Int

    public init(quality: Int, method: Int = WebPSettings.defaultMethod) {
        self.quality = quality
        self.method = method
    }
}
