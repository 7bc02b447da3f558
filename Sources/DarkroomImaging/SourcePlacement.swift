import LibHeif

/// How the rows a decoder delivers become the picture a render's orientation applies to. A JPEG's
/// rows are the picture. A HEIF's are as coded: its `irot` and `imir` turn them, its `clap` cuts
/// the picture out of them; darkroom applies both itself (so a grid decodes a row of tiles at a
/// time, and a rotation spills to tiles as a JPEG's does).
struct SourcePlacement: Sendable, Equatable {
    /// The rows the decoder delivers.
    var decodedSize: PixelSize
    /// Turns the decoded rows into the picture.
    var orientation: Orientation = .up
    /// The picture, within the oriented rows.
    var window: PixelRect

    init(decodedSize: PixelSize) {
        self.decodedSize = decodedSize
        window = PixelRect(size: decodedSize)
    }

    /// Applies `transforms` in order to the coded image. LibHeif has checked that they give the
    /// displayed size.
    init(coded: PixelSize, transforms: [HEIFTransform]) {
        self.init(decodedSize: coded)
        var canvas = coded
        for step in transforms {
            let turn: Orientation
            switch step {
            case .rotation(let degrees):
                turn = degrees == 90 ? .left : degrees == 180 ? .down : .right
            case .mirror(let leftToRight):
                turn = leftToRight ? .upMirrored : .downMirrored
            case .crop(let left, let top, let right, let bottom):
                window = PixelRect(
                    x: window.x + left, y: window.y + top, width: window.width - left - right,
                    height: window.height - top - bottom)
                continue
            }
            window = turn.orientedRect(for: window, stored: canvas)
            canvas = turn.orientedSize(of: canvas)
            orientation = orientation.followed(by: turn)
        }
    }

    /// The picture's size.
    var size: PixelSize { window.size }

    /// With `next` applied to the picture: the orientation of the decoded rows, and the picture
    /// within them once oriented (nil when it is all of them).
    func followed(by next: Orientation) -> (orientation: Orientation, window: PixelRect?) {
        let canvas = orientation.orientedSize(of: decodedSize)
        let turned = next.orientedRect(for: window, stored: canvas)
        let total = orientation.followed(by: next)
        return (total, turned == PixelRect(size: total.orientedSize(of: decodedSize)) ? nil : turned)
    }
}
