import GainMaps
import Testing

@Suite struct GainMapXMPTests {
    static func packet(_ body: String, prefix: String = "hdrgm") -> [UInt8] {
        Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:\(prefix)="http://ns.adobe.com/hdr-gain-map/1.0/" \(body)
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
    }

    /// Scalars as attributes, a list as an rdf:Seq, the rest defaulted as Adobe's spec says.
    @Test func attributesSequencesAndDefaults() throws {
        let xmp = Self.packet(
            #"""
            g:Version="1.0" g:HDRCapacityMax="3.5" g:OffsetHDR="0">
            <g:GainMapMax><rdf:Seq><rdf:li>3.5</rdf:li><rdf:li> 3.6 </rdf:li><rdf:li>3.7</rdf:li></rdf:Seq></g:GainMapMax>
            """#, prefix: "g")
        let adobe = try #require(try GainMapXMP.adobe(xmp))
        let metadata = try #require(adobe.metadata)
        #expect(metadata.gainMapMax == SIMD3(3.5, 3.6, 3.7) && metadata.gainMapMin == .zero)
        #expect(metadata.gamma == .one && metadata.baseOffset == SIMD3(repeating: 1.0 / 64))
        #expect(metadata.alternateOffset == .zero && metadata.baseHeadroom == 0 && metadata.alternateHeadroom == 3.5)
        #expect(!metadata.baseIsHDR && metadata.isMultichannel)
    }

    /// An HDR base swaps the headrooms and offsets (ISO 21496-1's terms).
    @Test func hdrBaseSwapsHeadroomsAndOffsets() throws {
        let xmp = Self.packet(
            #"""
            hdrgm:Version="1.0" hdrgm:GainMapMin="-2" hdrgm:GainMapMax="0" hdrgm:HDRCapacityMin="0.5"
            hdrgm:HDRCapacityMax="2" hdrgm:OffsetSDR="0.01" hdrgm:OffsetHDR="0.02" hdrgm:BaseRenditionIsHDR="True">
            """#)
        let metadata = try #require(try GainMapXMP.adobe(xmp)?.metadata)
        #expect(metadata.baseIsHDR && metadata.baseHeadroom == 2 && metadata.alternateHeadroom == 0.5)
        #expect(metadata.baseOffset == SIMD3(repeating: 0.02) && metadata.alternateOffset == SIMD3(repeating: 0.01))
        let written = try GainMapXMP.gainMapPacket(metadata)
        #expect(try GainMapXMP.adobe(written)?.metadata == metadata)
    }

    @Test func primaryPacketNamesOnlyTheVersion() throws {
        let adobe = try #require(try GainMapXMP.adobe(GainMapXMP.primaryPacket(gainMapLength: 1234)))
        #expect(adobe == GainMapXMP.Adobe(version: "1.0", metadata: nil))
        #expect(try GainMapXMP.adobe(Array("<x:xmpmeta/>".utf8)) == nil)
    }

    @Test(arguments: [ISOGainMapMetadataTests.single, ISOGainMapMetadataTests.triple])
    func writtenPacketReadsBack(metadata: GainMapMetadata) throws {
        var metadata = metadata
        metadata.useBaseColorSpace = true
        #expect(try GainMapXMP.adobe(GainMapXMP.gainMapPacket(metadata))?.metadata == metadata)
    }

    @Test(arguments: [
        (#"hdrgm:Version="2.0" hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="1">"#, GainMapError.Code.unsupported),
        (#"hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="1">"#, .malformed),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="nan" hdrgm:HDRCapacityMax="1">"#, .malformed),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="inf" hdrgm:HDRCapacityMax="1">"#, .malformed),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="1e999" hdrgm:HDRCapacityMax="1">"#, .malformed),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="0x10" hdrgm:HDRCapacityMax="1">"#, .malformed),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMin="3" hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="1">"#, .inconsistent),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="0">"#, .inconsistent),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="1" hdrgm:Gamma="0">"#, .inconsistent),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="1" hdrgm:OffsetSDR="-1">"#, .inconsistent),
        (#"hdrgm:Version="1.0" hdrgm:GainMapMax="99" hdrgm:HDRCapacityMax="1">"#, .inconsistent),
        (#"hdrgm:Version="1.0" hdrgm:HDRCapacityMax="1">"#, .malformed),
        (
            #"hdrgm:Version="1.0" hdrgm:GainMapMax="1" hdrgm:HDRCapacityMax="1" hdrgm:BaseRenditionIsHDR="yes">"#,
            .malformed
        ),
        (
            #"hdrgm:Version="1.0" hdrgm:HDRCapacityMax="1"><hdrgm:GainMapMax><rdf:Seq><rdf:li>1</rdf:li>"#
                + "<rdf:li>2</rdf:li></rdf:Seq></hdrgm:GainMapMax>", .malformed
        ),
    ])
    func hostilePacketsAreRefused(body: String, code: GainMapError.Code) {
        do {
            let read = try GainMapXMP.adobe(Self.packet(body))
            Issue.record("accepted: \(String(describing: read))")
        } catch {
            #expect(error.code == code, "\(error)")
        }
    }

    @Test func oversizedAndGarbagePackets() {
        #expect(throws: GainMapError.self) { try GainMapXMP.adobe([UInt8](repeating: 0x20, count: 2 << 20)) }
        for garbage in ["xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" <hdrgm:Version", "<<<>>>", "xmlns:"] {
            #expect((try? GainMapXMP.adobe(Array(garbage.utf8))) ?? nil == nil)
            #expect((try? GainMapXMP.apple(Array(garbage.utf8))) ?? nil == nil)
        }
    }

    /// Apple's gain map packet: a version and (newer files) a linear headroom.
    @Test func appleHeadroom() throws {
        func packet(_ body: String) -> [UInt8] {
            Array(
                (#"<rdf:Description xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/">"# + body
                    + "</rdf:Description>").utf8)
        }
        let apple = try GainMapXMP.apple(
            packet(
                "<HDRGainMap:HDRGainMapVersion>131072</HDRGainMap:HDRGainMapVersion>"
                    + "<HDRGainMap:HDRGainMapHeadroom>4.532783</HDRGainMap:HDRGainMapHeadroom>"))
        #expect(apple == GainMapXMP.Apple(version: 131072, headroom: 4.532783))
        #expect(
            try GainMapXMP.apple(packet("<HDRGainMap:HDRGainMapVersion>65536</HDRGainMap:HDRGainMapVersion>"))
                == GainMapXMP.Apple(version: 65536, headroom: nil))
        #expect(throws: GainMapError.self) {
            try GainMapXMP.apple(
                packet(
                    #"<HDRGainMap:HDRGainMapVersion>1</HDRGainMap:HDRGainMapVersion>"#
                        + "<HDRGainMap:HDRGainMapHeadroom>0.5</HDRGainMap:HDRGainMapHeadroom>"))
        }
    }
}
