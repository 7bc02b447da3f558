#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Applying a gain map (Adobe gain map 1.0 §"Applying the gain map", ISO 21496-1 §5): values,
/// no pixels held. Colours are linear light, relative to SDR white (1.0); a gain-map sample is
/// its code divided by the largest code (0…1), as stored (still gamma-encoded).
extension GainMapMetadata {
    /// How much of the map a display of `displayHeadroom` stops (log2 of its peak over SDR white)
    /// applies: 0 at or below the base image's headroom, 1 at or above the alternate's, in
    /// between in proportion. The same formula serves both directions: when the base is the HDR
    /// image the headrooms swap places and so does the weight.
    public func weight(displayHeadroom: Double) -> Double {
        let span = alternateHeadroom - baseHeadroom
        guard span != 0, !displayHeadroom.isNaN else { return 0 }
        return min(max((displayHeadroom - baseHeadroom) / span, 0), 1)
    }

    /// The log2 gain a sample encodes, per channel: the sample (clamped to 0…1) raised to
    /// 1/gamma, mapped linearly onto GainMapMin…GainMapMax.
    public func logGain(sample: SIMD3<Double>) -> SIMD3<Double> {
        var result = SIMD3<Double>()
        for channel in 0..<3 {
            let clamped = min(max(sample[channel], 0), 1)
            let recovered = gamma[channel] == 1 ? clamped : pow(clamped, 1 / gamma[channel])
            result[channel] = gainMapMin[channel] + (gainMapMax[channel] - gainMapMin[channel]) * recovered
        }
        return result
    }

    /// One pixel of the image shown at `weight`: (base + base offset) · 2^(gain · weight) −
    /// alternate offset, per channel.
    public func apply(base: SIMD3<Double>, sample: SIMD3<Double>, weight: Double) -> SIMD3<Double> {
        let gain = logGain(sample: sample)
        var result = SIMD3<Double>()
        for channel in 0..<3 {
            result[channel] =
                (base[channel] + baseOffset[channel]) * exp2(gain[channel] * weight)
                - alternateOffset[channel]
        }
        return result
    }
}

/// A gain map's samples, as decoded: one or three 8-bit channels a pixel, rows top to bottom.
public struct GainMapSamples: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (a luminance map, Apple's and most Ultra HDR ones) or 3.
    public var channels: Int
    public var codes: [UInt8]

    public init(width: Int, height: Int, channels: Int, codes: [UInt8]) {
        precondition(channels == 1 || channels == 3, "a gain map has one or three channels")
        precondition(codes.count == width * height * channels, "codes do not fill \(width)x\(height)x\(channels)")
        self.width = width
        self.height = height
        self.channels = channels
        self.codes = codes
    }

    /// The sample (0…1 per channel) that covers pixel (`x`, `y`) of an image `imageWidth` ×
    /// `imageHeight`: the map sample whose area holds the pixel's centre (the map usually has a
    /// quarter or half of the image's resolution).
    public func sample(x: Int, y: Int, imageWidth: Int, imageHeight: Int) -> SIMD3<Double> {
        let mapX = min(width - 1, (2 * x + 1) * width / (2 * imageWidth))
        let mapY = min(height - 1, (2 * y + 1) * height / (2 * imageHeight))
        let index = (mapY * width + mapX) * channels
        if channels == 1 { return SIMD3(repeating: Double(codes[index]) / 255) }
        return SIMD3(Double(codes[index]), Double(codes[index + 1]), Double(codes[index + 2])) / 255
    }
}

extension GainMapMetadata {
    /// The whole image at `weight`: `base` holds linear RGB (3 values a pixel, rows top to
    /// bottom) of `width` × `height`. For tests and small images: it holds the result whole.
    public func reconstruct(base: [Double], width: Int, height: Int, map: GainMapSamples, weight: Double) -> [Double] {
        precondition(base.count == width * height * 3, "base does not fill \(width)x\(height) RGB")
        var result = [Double](repeating: 0, count: base.count)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let pixel = SIMD3(base[index], base[index + 1], base[index + 2])
                let sample = map.sample(x: x, y: y, imageWidth: width, imageHeight: height)
                let out = apply(base: pixel, sample: sample, weight: weight)
                (result[index], result[index + 1], result[index + 2]) = (out.x, out.y, out.z)
            }
        }
        return result
    }
}
