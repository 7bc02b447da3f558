/// Normalised 1-D Gaussian weights, truncated at ±ceil(3σ): the same kernel runs along
/// rows and then columns (the 2-D Gaussian is separable).
public struct GaussianKernel: Sendable, Equatable {
    public let radius: Int
    /// 2·radius + 1 weights summing to 1; weights[radius] is the centre.
    public let weights: [Float]

    public static func radius(sigma: Float) -> Int {
        sigma > 0 ? Int((3 * sigma).rounded(.up)) : 0
    }

    public init(sigma: Float) {
        radius = Self.radius(sigma: sigma)
        guard radius > 0 else {
            weights = [1]
            return
        }
        let twoSigmaSquared = 2 * Double(sigma) * Double(sigma)
        let raw = (-radius...radius).map { offset in exp(-Double(offset * offset) / twoSigmaSquared) }
        let total = raw.reduce(0, +)
        weights = raw.map { Float($0 / total) }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
