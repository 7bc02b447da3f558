/// What libheif 1.19.7 cannot write of an ISO 21496-1 gain map, written into the file it laid
/// out: the `tmap` brand, the gain map item's hidden flag, and the `altr` entity group that makes
/// the `tmap` item the preferred alternative to the primary image (what libavif, and so Chrome,
/// require before they apply a map). libheif writes `ftyp`, `meta`, then `mdat`; growing the first
/// two moves the coded data, so every `iloc` offset into the file moves by as much.
///
/// The input is libheif's own output, not a stranger's file, but it is still read with every
/// length checked: what does not have the expected shape is a `.misuse` naming the box.
enum HEIFToneMapLayout {
    struct Items {
        var primary: UInt32
        var toneMap: UInt32
        var gainMap: UInt32
    }

    static func finish(_ file: [UInt8], items: Items, name: String) throws(HEIFError) -> [UInt8] {
        let reader = BoxLayout(file, name: name)
        let top = try reader.children(of: 0..<file.count, in: "the file")
        guard top.count >= 3, top[0].type == "ftyp", top[1].type == "meta", top[2].type == "mdat" else {
            throw reader.unexpected("the file's boxes are \(top.map(\.type)), not ftyp, meta, mdat")
        }
        let ftyp = try brandsWithToneMap(Array(file[top[0].range]), reader: reader)
        let metaBox = top[1]
        guard metaBox.payload.count >= 4 else { throw reader.unexpected("meta has no version and flags") }
        // A full box: its version and flags come before its children.
        let metaChildren = try reader.children(
            of: (metaBox.payload.lowerBound + 4)..<metaBox.range.upperBound, in: "meta")
        guard !metaChildren.contains(where: { $0.type == "grpl" }) else {
            throw reader.unexpected("libheif wrote a grpl box; darkroom expects to write the only one")
        }
        var meta = Array(file[metaBox.range])
        let base = metaBox.range.lowerBound
        guard let iinf = metaChildren.first(where: { $0.type == "iinf" }),
            let iloc = metaChildren.first(where: { $0.type == "iloc" })
        else { throw reader.unexpected("meta has no iinf or iloc box") }
        let ids = try reader.markHidden(items.gainMap, iinf: iinf, in: &meta, base: base)
        guard let highest = ids.max(), ids.contains(items.toneMap), ids.contains(items.primary) else {
            throw reader.unexpected("iinf lists items \(ids), not the tone map and the primary image")
        }
        let group = altrGroup(id: highest + 1, entities: [items.toneMap, items.primary])
        let moved = (ftyp.count - top[0].range.count) + group.count
        try reader.moveOffsets(by: moved, iloc: iloc, in: &meta, base: base, dataStart: top[2].range.lowerBound)
        meta += group
        try BoxLayout.setSize(&meta, meta.count, name: name)
        return ftyp + meta + file[top[1].range.upperBound...]
    }

    /// `ftyp` with `tmap` among its compatible brands.
    private static func brandsWithToneMap(_ ftyp: [UInt8], reader: BoxLayout) throws(HEIFError) -> [UInt8] {
        guard ftyp.count >= 16, (ftyp.count - 16) % 4 == 0 else {
            throw reader.unexpected("ftyp is \(ftyp.count) bytes")
        }
        let brands = stride(from: 16, to: ftyp.count, by: 4).map { Array(ftyp[$0..<($0 + 4)]) }
        if brands.contains(Array("tmap".utf8)) { return ftyp }
        var grown = ftyp + Array("tmap".utf8)
        try BoxLayout.setSize(&grown, grown.count, name: reader.name)
        return grown
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// `grpl` holding one `altr` (version 0, no flags): `entities`, the first preferred.
    private static func altrGroup(id: UInt32, entities: [UInt32]) -> [UInt8] {
        let altr = 8 + 4 + 4 + 4 + 4 * entities.count
        var box = bigEndian(UInt32(8 + altr)) + Array("grpl".utf8)
        box += bigEndian(UInt32(altr)) + Array("altr".utf8) + [0, 0, 0, 0]
        box += bigEndian(id) + bigEndian(UInt32(entities.count))
        for entity in entities { box += bigEndian(entity) }
        return box
    }
}

/// ISO BMFF boxes in a byte array: where each is, read with its lengths checked.
private struct BoxLayout {
    struct Box {
        var type: String
        /// The whole box, header included.
        var range: Range<Int>
        /// After the header.
        var payload: Range<Int>
    }

    let bytes: [UInt8]
    let name: String

    init(_ bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    func unexpected(_ what: String) -> HEIFError {
        HEIFError.writing(.misuse, "cannot add the gain map's boxes to libheif's AVIF: \(what)", object: name)
    }

    /// The boxes that fill `range` exactly; 32-bit sizes only (libheif writes no other).
    func children(of range: Range<Int>, in parent: String) throws(HEIFError) -> [Box] {
        var boxes: [Box] = []
        var at = range.lowerBound
        while at < range.upperBound {
            guard range.upperBound - at >= 8 else { throw unexpected("\(parent) ends inside a box header") }
            let size = Int(read(at, 4))
            guard size >= 8, size <= range.upperBound - at else {
                throw unexpected("a box of \(size) bytes at byte \(at) of \(parent) does not fit it")
            }
            let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
            boxes.append(Box(type: type, range: at..<(at + size), payload: (at + 8)..<(at + size)))
            at += size
        }
        return boxes
    }

    /// A big-endian number of `width` (0…8) bytes at `offset`; callers check the bounds.
    func read(_ offset: Int, _ width: Int) -> UInt64 {
        bytes[offset..<(offset + width)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Sets the hidden flag (`flags & 1`) of `item`'s `infe` in `meta` (whose first byte is the
    /// file's `base`); every item ID `iinf` lists.
    func markHidden(_ item: UInt32, iinf: Box, in meta: inout [UInt8], base: Int) throws(HEIFError) -> [UInt32] {
        guard iinf.payload.count >= 6 else { throw unexpected("iinf is too short") }
        let countBytes = bytes[iinf.payload.lowerBound] == 0 ? 2 : 4
        guard iinf.payload.count >= 4 + countBytes else { throw unexpected("iinf is too short") }
        let entries = try children(of: (iinf.payload.lowerBound + 4 + countBytes)..<iinf.range.upperBound, in: "iinf")
        var ids: [UInt32] = []
        var marked = false
        for entry in entries where entry.type == "infe" {
            guard !entry.payload.isEmpty else { throw unexpected("an empty infe box") }
            let version = bytes[entry.payload.lowerBound]
            guard version >= 2, entry.payload.count >= (version == 2 ? 10 : 12) else {
                throw unexpected("an infe box of version \(version) and \(entry.payload.count) bytes")
            }
            let id = UInt32(read(entry.payload.lowerBound + 4, version == 2 ? 2 : 4))
            ids.append(id)
            if id == item {
                meta[entry.payload.lowerBound + 3 - base] |= 1
                marked = true
            }
        }
        guard marked else { throw unexpected("iinf has no entry for the gain map, item \(item)") }
        return ids
    }

    /// Adds `delta` to every `iloc` location in the file (construction method 0, this file):
    /// each must point at `dataStart` or after, past the boxes that grow.
    func moveOffsets(by delta: Int, iloc: Box, in meta: inout [UInt8], base: Int, dataStart: Int) throws(HEIFError) {
        var at = iloc.payload.lowerBound
        let end = iloc.range.upperBound
        func take(_ width: Int) throws(HEIFError) -> (offset: Int, value: UInt64) {
            guard width >= 0, end - at >= width else { throw unexpected("iloc ends inside an entry") }
            defer { at += width }
            return (at, read(at, width))
        }
        func move(_ field: (offset: Int, value: UInt64), width: Int) throws(HEIFError) {
            guard field.value >= UInt64(dataStart) else {
                throw unexpected("an iloc offset (\(field.value)) points before the mdat box (\(dataStart))")
            }
            let moved = field.value + UInt64(delta)
            guard width == 8 || moved < (UInt64(1) << (8 * width)) else {
                throw unexpected("an iloc offset of \(moved) does not fit its \(width) bytes")
            }
            for index in 0..<width {
                meta[field.offset - base + index] = UInt8(truncatingIfNeeded: moved >> (8 * (width - 1 - index)))
            }
        }
        let version = try take(4).value >> 24
        guard version <= 2 else { throw unexpected("iloc version \(version)") }
        let sizes = try take(2).value
        let (offsetSize, lengthSize) = (Int(sizes >> 12 & 15), Int(sizes >> 8 & 15))
        let baseOffsetSize = Int(sizes >> 4 & 15)
        let indexSize = version == 0 ? 0 : Int(sizes & 15)
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(baseOffsetSize) else {
            throw unexpected("iloc field sizes \(offsetSize) and \(baseOffsetSize)")
        }
        let itemCount = try take(version < 2 ? 2 : 4).value
        for _ in 0..<itemCount {
            _ = try take(version < 2 ? 2 : 4)
            let method = version == 0 ? 0 : try take(2).value & 15
            let reference = try take(2).value
            let baseOffset = try take(baseOffsetSize)
            let extentCount = try take(2).value
            var extents: [(offset: Int, value: UInt64)] = []
            for _ in 0..<extentCount {
                _ = try take(indexSize)
                extents.append(try take(offsetSize))
                _ = try take(lengthSize)
            }
            // Other construction methods point into `idat` or other items, which do not move.
            guard method == 0, reference == 0, extentCount > 0 else { continue }
            if baseOffset.value != 0 {
                try move(baseOffset, width: baseOffsetSize)
            } else {
                guard offsetSize > 0 else { throw unexpected("an iloc entry with neither offset") }
                for extent in extents { try move(extent, width: offsetSize) }
            }
        }
    }

    static func setSize(_ box: inout [UInt8], _ size: Int, name: String) throws(HEIFError) {
        guard size <= Int(UInt32.max) else {
            throw HEIFError.writing(.tooLarge, "a box of \(size) bytes is too large for a 32-bit size", object: name)
        }
        box.replaceSubrange(0..<4, with: HEIFToneMapLayout.bigEndian(UInt32(size)))
    }

}
