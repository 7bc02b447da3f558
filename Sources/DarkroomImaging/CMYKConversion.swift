import JPEGTurbo
import LittleCMS

/// How a CMYK or YCCK JPEG's pixels become RGB: decided from the header alone (a value), then
/// made (`CMYKConversion`), which may fall back when Little CMS cannot use the profile.
enum CMYKMethod: Sendable, Equatable {
    /// Through the file's own ICC profile into sRGB, with Little CMS.
    case profile([UInt8], inverted: Bool)
    /// Adobe's convention without a profile: each ink darkens its own channel and black darkens
    /// all, R = (1 − C)(1 − K) in ink fractions.
    case naive(inverted: Bool)

    /// nil for files that are not CMYK or YCCK. Adobe's files (those with an APP14 marker, whatever
    /// its transform flag) store ink inverted; libjpeg has turned YCCK into that CMYK already.
    init?(_ header: JPEGHeader) {
        guard header.colorSpace == .cmyk || header.colorSpace == .ycck else { return nil }
        let inverted = header.adobeTransform != nil
        self = header.iccProfile.map { .profile($0, inverted: inverted) } ?? .naive(inverted: inverted)
    }

    /// The naive conversion of one pixel, the stored bytes as libjpeg delivers them.
    static func naiveRGB(c: UInt8, m: UInt8, y: UInt8, k: UInt8, inverted: Bool) -> (UInt8, UInt8, UInt8) {
        // Inverted bytes are already "paper left": 255 − ink.
        let (c, m, y, k) =
            inverted ? (Int(c), Int(m), Int(y), Int(k)) : (255 - Int(c), 255 - Int(m), 255 - Int(y), 255 - Int(k))
        return (UInt8((c * k + 127) / 255), UInt8((m * k + 127) / 255), UInt8((y * k + 127) / 255))
    }
}

/// Turns CMYK rows into RGB ones: owns the Little CMS transform when there is one.
final class CMYKConversion {
    private let transform: CMYKToRGBTransform?
    private let inverted: Bool
    /// Said when the file's profile could not be used and the naive conversion ran instead.
    let warning: RenderWarning?

    init(_ method: CMYKMethod) {
        switch method {
        case .naive(let inverted):
            self.inverted = inverted
            transform = nil
            warning = nil
        case .profile(let bytes, let inverted):
            self.inverted = inverted
            do {
                transform = try CMYKToRGBTransform(
                    from: ColorProfile(iccBytes: bytes), input: inverted ? .invertedCMYK : .cmyk,
                    to: ColorProfile.sRGB())
                warning = nil
            } catch {
                transform = nil
                warning = .cmykProfileNotUsed(reason: "\(error)")
            }
        }
    }

    /// Converts one row of `pixels` pixels.
    func convert(_ cmyk: UnsafeRawBufferPointer, into rgb: UnsafeMutableRawBufferPointer, pixels: Int) {
        if let transform {
            transform.convert(cmyk, into: rgb, pixels: pixels)
            return
        }
        let source = cmyk.bindMemory(to: UInt8.self)
        let target = rgb.bindMemory(to: UInt8.self)
        for pixel in 0..<pixels {
            let (r, g, b) = CMYKMethod.naiveRGB(
                c: source[pixel * 4], m: source[pixel * 4 + 1], y: source[pixel * 4 + 2], k: source[pixel * 4 + 3],
                inverted: inverted)
            target[pixel * 3] = r
            target[pixel * 3 + 1] = g
            target[pixel * 3 + 2] = b
        }
    }
}

/// A CMYK JPEG's rows as RGB: reads CMYK rows through its own buffer, a strip at a time, and
/// converts each into the caller's rows. Owns the buffer, priced by `RenderPlanner.conversionBytes`.
final class CMYKRows: ScanlineDecoder {
    private let decoder: JPEGDecoder
    private let conversion: CMYKConversion
    private let buffer: UnsafeMutableRawBufferPointer
    private let rowsPerRead: Int

    init(decoder: JPEGDecoder, conversion: CMYKConversion, rowsPerRead: Int) {
        self.decoder = decoder
        self.conversion = conversion
        self.rowsPerRead = max(1, rowsPerRead)
        buffer = .allocate(byteCount: decoder.outputWidth * 4 * self.rowsPerRead, alignment: 16)
    }

    deinit { buffer.deallocate() }

    var objectName: String { decoder.objectName }
    var outputHeight: Int { decoder.outputHeight }
    var nextRow: Int { decoder.nextRow }

    func readRows(into destination: UnsafeMutableRawBufferPointer, rowStride: Int, rowCount: Int) throws -> Int {
        let width = decoder.outputWidth
        var done = 0
        while done < rowCount {
            let got = try decoder.readRows(
                into: buffer, rowStride: width * 4, rowCount: min(rowsPerRead, rowCount - done))
            if got == 0 { break }
            for row in 0..<got {
                conversion.convert(
                    UnsafeRawBufferPointer(rebasing: buffer[(row * width * 4)..<((row + 1) * width * 4)]),
                    into: UnsafeMutableRawBufferPointer(
                        rebasing: destination[((done + row) * rowStride)..<((done + row) * rowStride + width * 3)]),
                    pixels: width)
            }
            done += got
        }
        return done
    }

    func skipRows(_ count: Int) throws { try decoder.skipRows(count) }
}
