import DarkroomImaging

/// How a worker renders: output quality, and the memory a single job may use.
public struct RenderSettings: Sendable {
    public var quality: Int
    public var huffman: RenderPlanner.HuffmanOptimisation
    /// For one job; the worker divides its whole budget between its concurrent jobs.
    public var memoryBudgetPerJob: Int
    public var maxPixels: Int
    /// Threads per render: 2 runs the JPEG encoder beside decoding and color work. The worker
    /// sets it for each job as it starts (`SlotResources.renderThreads`).
    public var threads: Int
    /// Longest side of the display-size copy each job writes.
    public var displayLongestSide = RenderRequest.defaultDisplayLongestSide
    /// Render Apple Photos edits' geometry even when they hold adjustments darkroom cannot
    /// reproduce, recording a warning that names them (else such a job fails with
    /// `apple_adjustment_unsupported`).
    public var appleGeometryOnly = false
    /// Whether renders of an original with an HDR gain map carry the map (`--hdr keep`).
    public var hdr: HDROutput = .keep

    public init(
        quality: Int = OutputEncoding.defaultQuality, huffman: RenderPlanner.HuffmanOptimisation = .off,
        memoryBudgetPerJob: Int = 256 << 20, maxPixels: Int = RenderLimits.defaultMaxPixels,
        threads: Int = 1
    ) {
        self.threads = threads
        self.quality = quality
        self.huffman = huffman
        self.memoryBudgetPerJob = memoryBudgetPerJob
        self.maxPixels = maxPixels
    }

    /// 4:2:0 below quality 90, 4:4:4 from 90 up.
    public var encoding: OutputEncoding { OutputEncoding(quality: quality) }
    public var limits: RenderLimits { RenderLimits(memoryBudget: memoryBudgetPerJob, maxPixels: maxPixels) }
}

/// `--hdr keep|drop`: whether a render of an original with an HDR gain map carries the map
/// through the edit (a gain-map JPEG, docs/hdr.md) or is standard range only.
public enum HDROutput: String, Sendable, CaseIterable {
    case keep, drop
}
