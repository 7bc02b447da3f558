import DarkroomImaging

/// How a worker renders: output quality, and the memory budget each render is planned against.
public struct RenderSettings: Sendable {
    public var quality: Int
    public var huffman: RenderPlanner.HuffmanOptimisation
    /// The whole budget: every render is planned against it. A worker's renders share it
    /// through `memoryAdmission`, so together they never use more.
    public var memoryBudget: Int
    /// Where a render reserves its price before it allocates (the worker's `WorkerMemory`); nil
    /// for a render that has the budget to itself.
    public var memoryAdmission: (any MemoryAdmission)?
    public var maxPixels: Int
    /// Threads per render: 2 runs the JPEG encoder beside decoding and color work. The worker
    /// sets it for each job as it starts (`SlotResources.renderThreads`).
    public var threads: Int
    /// The renditions the top layer's render writes beside it: the library's current set
    /// (`darkroom.current_renditions`, read for each job), else the built-in display copy.
    public var renditions = RenditionVersion.builtIn
    /// Render Apple Photos edits' geometry even when they hold adjustments darkroom cannot
    /// reproduce, recording a warning that names them (else such a job fails with
    /// `apple_adjustment_unsupported`).
    public var appleGeometryOnly = false
    /// Whether renders of an original with an HDR gain map carry the map (`--hdr keep`).
    public var hdr: HDROutput = .keep

    public init(
        quality: Int = OutputEncoding.defaultQuality, huffman: RenderPlanner.HuffmanOptimisation = .off,
        memoryBudget: Int = RenderLimits.defaultMemoryBudget, maxPixels: Int = RenderLimits.defaultMaxPixels,
        threads: Int = 1, memoryAdmission: (any MemoryAdmission)? = nil
    ) {
        self.threads = threads
        self.quality = quality
        self.huffman = huffman
        self.memoryBudget = memoryBudget
        self.memoryAdmission = memoryAdmission
        self.maxPixels = maxPixels
    }

    /// 4:2:0 below quality 90, 4:4:4 from 90 up.
    public var encoding: OutputEncoding { OutputEncoding(quality: quality) }
    public var limits: RenderLimits { RenderLimits(memoryBudget: memoryBudget, maxPixels: maxPixels) }
}

/// As JSON: how a worker tells its sandboxed child how to render (`SandboxJob`). The admission
/// stays behind: the channel stands in for it.
extension RenderSettings: Codable {
    enum CodingKeys: String, CodingKey {
        case quality, huffman, memoryBudget, maxPixels, threads, renditions, appleGeometryOnly, hdr
    }
}

/// `--hdr keep|drop`: whether a render of an original with an HDR gain map carries the map
/// through the edit (a gain-map JPEG, docs/hdr.md) or is standard range only.
public enum HDROutput: String, Sendable, CaseIterable, Codable {
    case keep, drop
}
