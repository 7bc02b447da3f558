#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Gain-map metadata in XMP: Adobe's gain map 1.0 (`hdrgm`, which Ultra HDR uses) and Apple's
/// `HDRGainMap` headroom. Reads a packet (a JPEG APP1 payload after its name, or a HEIF XMP
/// item) and writes the packets a gain-map JPEG carries.
public enum GainMapXMP {
    public static let adobeNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
    public static let appleNamespace = "http://ns.apple.com/HDRGainMap/1.0/"
    /// An APP1 segment holding XMP starts with this name.
    public static let jpegSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    /// Larger than any standard XMP packet (one APP1 segment holds 64 KiB).
    public static let maxPacketBytes = 1 << 20

    /// What an `hdrgm` packet says: its version, and the metadata when it carries it (a gain
    /// map's packet does; the primary image's names only the version).
    public struct Adobe: Sendable, Equatable {
        public var version: String
        public var metadata: GainMapMetadata?

        public init(version: String, metadata: GainMapMetadata?) {
            self.version = version
            self.metadata = metadata
        }
    }

    /// What Apple's `HDRGainMap` packet says (the gain map image's own XMP).
    public struct Apple: Sendable, Equatable {
        public var version: Int
        /// Linear (the ratio of peak to SDR white), when the packet has it; older files keep
        /// it only in the MakerNote.
        public var headroom: Double?

        public init(version: Int, headroom: Double?) {
            self.version = version
            self.headroom = headroom
        }
    }

    /// The `hdrgm` properties of `packet`, nil when it declares no `hdrgm` namespace.
    public static func adobe(_ packet: [UInt8]) throws(GainMapError) -> Adobe? {
        let scanner = try scanner(packet)
        guard let prefix = scanner.prefixes(of: adobeNamespace).first else { return nil }
        guard let version = scanner.values(prefix, "Version")?.first else {
            throw GainMapError(.malformed, .xmp, "hdrgm properties without hdrgm:Version")
        }
        guard version == "1.0" else {
            throw GainMapError(.unsupported, .xmp, "hdrgm:Version \(version) (darkroom reads 1.0)")
        }
        guard scanner.values(prefix, "GainMapMax") != nil || scanner.values(prefix, "HDRCapacityMax") != nil else {
            return Adobe(version: version, metadata: nil)
        }
        func channels(_ name: String, _ fallback: Double?) throws(GainMapError) -> SIMD3<Double> {
            guard let texts = scanner.values(prefix, name) else {
                guard let fallback else { throw GainMapError(.malformed, .xmp, "no hdrgm:\(name)") }
                return SIMD3(repeating: fallback)
            }
            guard texts.count == 1 || texts.count == 3 else {
                throw GainMapError(.malformed, .xmp, "hdrgm:\(name) has \(texts.count) values (1 or 3)")
            }
            var values = SIMD3<Double>()
            for (channel, text) in texts.enumerated() { values[channel] = try number(text, name) }
            return texts.count == 1 ? SIMD3(repeating: values[0]) : values
        }
        func scalar(_ name: String, _ fallback: Double?) throws(GainMapError) -> Double {
            guard let texts = scanner.values(prefix, name) else {
                guard let fallback else { throw GainMapError(.malformed, .xmp, "no hdrgm:\(name)") }
                return fallback
            }
            guard texts.count == 1 else {
                throw GainMapError(.malformed, .xmp, "hdrgm:\(name) has \(texts.count) values")
            }
            return try number(texts[0], name)
        }
        var baseIsHDR = false
        if let texts = scanner.values(prefix, "BaseRenditionIsHDR") {
            switch texts.first?.lowercased() {
            case "true": baseIsHDR = true
            case "false": baseIsHDR = false
            default: throw GainMapError(.malformed, .xmp, "hdrgm:BaseRenditionIsHDR is \(texts), not True or False")
            }
        }
        let capacityMin = try scalar("HDRCapacityMin", 0)
        let capacityMax = try scalar("HDRCapacityMax", nil)
        let offsetSDR = try channels("OffsetSDR", 1.0 / 64)
        let offsetHDR = try channels("OffsetHDR", 1.0 / 64)
        guard capacityMax > capacityMin else {
            throw GainMapError(
                .inconsistent, .xmp, "hdrgm:HDRCapacityMax \(capacityMax) is not above HDRCapacityMin \(capacityMin)")
        }
        for (name, offsets) in [("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR)] where offsets.min() < 0 {
            throw GainMapError(.inconsistent, .xmp, "hdrgm:\(name) is negative")
        }
        let metadata = GainMapMetadata(
            gainMapMin: try channels("GainMapMin", 0), gainMapMax: try channels("GainMapMax", nil),
            gamma: try channels("Gamma", 1), baseOffset: baseIsHDR ? offsetHDR : offsetSDR,
            alternateOffset: baseIsHDR ? offsetSDR : offsetHDR, baseHeadroom: baseIsHDR ? capacityMax : capacityMin,
            alternateHeadroom: baseIsHDR ? capacityMin : capacityMax)
        return Adobe(version: version, metadata: try metadata.validated(.xmp))
    }

    /// Apple's `HDRGainMap` properties of `packet`, nil without `HDRGainMapVersion`.
    public static func apple(_ packet: [UInt8]) throws(GainMapError) -> Apple? {
        let scanner = try scanner(packet)
        for prefix in scanner.prefixes(of: appleNamespace) {
            guard let versionText = scanner.values(prefix, "HDRGainMapVersion")?.first else { continue }
            guard let version = Int(versionText) else {
                throw GainMapError(.malformed, .xmp, "HDRGainMapVersion is \(versionText), not a number")
            }
            guard let headroomText = scanner.values(prefix, "HDRGainMapHeadroom")?.first else {
                return Apple(version: version, headroom: nil)
            }
            let headroom = try number(headroomText, "HDRGainMapHeadroom")
            guard headroom > 1, headroom <= exp2(GainMapMetadata.maxStops) else {
                throw GainMapError(
                    .inconsistent, .xmp, "HDRGainMapHeadroom is \(headroom) (above 1: brighter than SDR)")
            }
            return Apple(version: version, headroom: headroom)
        }
        return nil
    }

    private static func scanner(_ packet: [UInt8]) throws(GainMapError) -> XMPScanner {
        guard packet.count <= maxPacketBytes else {
            throw GainMapError(.tooLarge, .xmp, "an XMP packet of \(packet.count) bytes (at most \(maxPacketBytes))")
        }
        return XMPScanner(packet)
    }

    private static func number(_ text: String, _ name: String) throws(GainMapError) -> Double {
        // Decimal notation only: Swift would also read "nan", "inf" and hexadecimal.
        guard !text.isEmpty, text.utf8.count <= 64,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || "+-.eE".utf8.contains($0) }),
            let value = Double(text), value.isFinite
        else { throw GainMapError(.malformed, .xmp, "\(name) is \(text.prefix(64).debugDescription), not a number") }
        return value
    }
}

// Writing.
extension GainMapXMP {
    /// The gain map image's packet: every `hdrgm` value (one per channel when they differ).
    public static func gainMapPacket(_ metadata: GainMapMetadata) throws(GainMapError) -> [UInt8] {
        let metadata = try metadata.validated(.xmp)
        let hdr = metadata.baseIsHDR
        let capacityMin = hdr ? metadata.alternateHeadroom : metadata.baseHeadroom
        let capacityMax = hdr ? metadata.baseHeadroom : metadata.alternateHeadroom
        let offsetSDR = hdr ? metadata.alternateOffset : metadata.baseOffset
        let offsetHDR = hdr ? metadata.baseOffset : metadata.alternateOffset
        var attributes = ["hdrgm:Version=\"1.0\""]
        var elements: [String] = []
        for (name, values) in [
            ("GainMapMin", metadata.gainMapMin), ("GainMapMax", metadata.gainMapMax), ("Gamma", metadata.gamma),
            ("OffsetSDR", offsetSDR), ("OffsetHDR", offsetHDR),
        ] {
            if values.x == values.y && values.x == values.z {
                attributes.append("hdrgm:\(name)=\"\(values.x)\"")
            } else {
                let items = (0..<3).map { "<rdf:li>\(values[$0])</rdf:li>" }.joined()
                elements.append("<hdrgm:\(name)><rdf:Seq>\(items)</rdf:Seq></hdrgm:\(name)>")
            }
        }
        attributes += [
            "hdrgm:HDRCapacityMin=\"\(capacityMin)\"", "hdrgm:HDRCapacityMax=\"\(capacityMax)\"",
            "hdrgm:BaseRenditionIsHDR=\"\(hdr ? "True" : "False")\"",
        ]
        return packet(
            "xmlns:hdrgm=\"\(adobeNamespace)\" " + attributes.joined(separator: " "), elements.joined())
    }

    /// The primary image's packet: the `hdrgm` version and the Ultra HDR container directory
    /// that names the gain map (a JPEG of `gainMapLength` bytes) as the second image.
    public static func primaryPacket(gainMapLength: Int) -> [UInt8] {
        let item = "http://ns.google.com/photos/1.0/container/item/"
        let directory =
            "<Container:Directory><rdf:Seq>"
            + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/>"
            + "</rdf:li><rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"GainMap\" "
            + "Item:Mime=\"image/jpeg\" Item:Length=\"\(gainMapLength)\"/></rdf:li></rdf:Seq></Container:Directory>"
        return packet(
            "xmlns:Container=\"http://ns.google.com/photos/1.0/container/\" xmlns:Item=\"\(item)\" "
                + "xmlns:hdrgm=\"\(adobeNamespace)\" hdrgm:Version=\"1.0\"", directory)
    }

    /// `packet` as a JPEG APP1 payload.
    public static func app1Payload(_ packet: [UInt8]) -> [UInt8] { jpegSignature + packet }

    private static func packet(_ attributes: String, _ elements: String) -> [UInt8] {
        let text =
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" \(attributes)>\(elements)</rdf:Description></rdf:RDF></x:xmpmeta>"
        return Array(text.utf8)
    }
}
