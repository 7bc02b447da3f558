import GainMaps
import Testing

@Suite struct ISOGainMapMetadataTests {
    static let single = GainMapMetadata(
        gainMapMin: .zero, gainMapMax: SIMD3(repeating: 2.5), gamma: .one, baseHeadroom: 0, alternateHeadroom: 2.5)
    static let triple = GainMapMetadata(
        gainMapMin: SIMD3(-0.256907, -0.261365, -0.280284), gainMapMax: SIMD3(1.277177, 1.277203, 1.277969),
        gamma: SIMD3(0.953784, 0.941095, 0.919422), baseOffset: SIMD3(repeating: 0.015625),
        alternateOffset: SIMD3(repeating: 0.015625), baseHeadroom: 0, alternateHeadroom: 1.3,
        useBaseColorSpace: false)

    /// An HDR base (its headroom above the alternate's), as fuzz-iso-gainmap found it must round-trip.
    static let hdrBase = GainMapMetadata(
        gainMapMin: .zero, gainMapMax: SIMD3(repeating: 2.5), baseHeadroom: 1, alternateHeadroom: 0.015625,
        useBaseColorSpace: false)

    @Test(arguments: [single, triple, hdrBase])
    func encodedMetadataReadsBack(metadata: GainMapMetadata) throws {
        let bytes = try ISOGainMapMetadata.encode(metadata)
        #expect(bytes.count == 5 + 16 + (metadata.isMultichannel ? 3 : 1) * 40)
        guard case .metadata(let read, writerVersion: 0) = try ISOGainMapMetadata.decode(bytes) else {
            Issue.record("no metadata")
            return
        }
        for keyPath in [\GainMapMetadata.gainMapMin, \.gainMapMax, \.gamma, \.baseOffset, \.alternateOffset] {
            #expect((0..<3).allSatisfy { abs(read[keyPath: keyPath][$0] - metadata[keyPath: keyPath][$0]) < 1e-9 })
        }
        #expect(read.alternateHeadroom == metadata.alternateHeadroom)
        #expect(read.useBaseColorSpace == metadata.useBaseColorSpace)
        let item = try ISOGainMapMetadata.encodeToneMapItem(metadata)
        #expect(try ISOGainMapMetadata.decode(toneMapItem: item) == read)
        let app2 = ISOGainMapMetadata.jpegNamespace + bytes
        #expect(try ISOGainMapMetadata.decode(app2Payload: app2) == .metadata(read, writerVersion: 0))
    }

    /// Built by hand from ISO 21496-1's field list: one channel, a common denominator of 4.
    @Test func commonDenominatorByHand() throws {
        let bytes: [UInt8] =
            [0, 0, 0, 1, 0x40 | 0x08] + be(4) + be(0) + be(10)  // headrooms 0 and 2.5
            + be(-2) + be(10) + be(4) + be(0) + be(1)  // min −0.5, max 2.5, gamma 1, offsets 0 and 0.25
            + [0xAA]  // a newer writer's extra field, skipped
        guard case .metadata(let metadata, writerVersion: 1) = try ISOGainMapMetadata.decode(bytes) else {
            Issue.record("no metadata")
            return
        }
        #expect(metadata.gainMapMin == SIMD3(repeating: -0.5) && metadata.gainMapMax == SIMD3(repeating: 2.5))
        #expect(metadata.baseOffset == .zero && metadata.alternateOffset == SIMD3(repeating: 0.25))
        #expect(metadata.alternateHeadroom == 2.5 && metadata.useBaseColorSpace)
        #expect(try ISOGainMapMetadata.decode([0, 0, 0, 0]) == .versionOnly(minimumVersion: 0, writerVersion: 0))
    }

    @Test func everyCutIsRefused() throws {
        let bytes = try ISOGainMapMetadata.encode(Self.triple)
        for length in 0..<bytes.count where length != 4 {
            #expect(throws: GainMapError.self) { try ISOGainMapMetadata.decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: GainMapError.self) { try ISOGainMapMetadata.decode(bytes + [0]) }
    }

    @Test func hostileValuesAreRefused() throws {
        let bytes = try ISOGainMapMetadata.encode(Self.single)
        func code(_ change: (inout [UInt8]) -> Void) -> GainMapError.Code? {
            var copy = bytes
            change(&copy)
            do {
                _ = try ISOGainMapMetadata.decode(copy)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code { $0[1] = 1 } == .unsupported)  // minimum_version 1
        #expect(code { $0[4] |= 0x04 } == .unsupported)  // backward direction
        #expect(code { $0.replaceSubrange(9..<13, with: [0, 0, 0, 0]) } == .inconsistent)  // zero denominator
        #expect(code { $0.replaceSubrange(13..<17, with: be(0)) } == .inconsistent)  // both headrooms 0
        #expect(code { $0.replaceSubrange(21..<25, with: be(100)) } == .inconsistent)  // min 100 > max 2.5
        #expect(code { $0.replaceSubrange(37..<41, with: be(0)) } == .inconsistent)  // gamma 0
        #expect(code { $0.replaceSubrange(13..<17, with: [0xFF, 0xFF, 0xFF, 0xFF]) } == .inconsistent)  // 4e9 stops
        #expect(throws: GainMapError.self) { try ISOGainMapMetadata.decode(toneMapItem: [1] + bytes) }
        #expect(throws: GainMapError.self) { try ISOGainMapMetadata.decode(toneMapItem: [0, 0, 0, 0, 0]) }
        #expect(throws: GainMapError.self) { try ISOGainMapMetadata.decode(app2Payload: Array("urn:iso".utf8)) }
    }

    private func be(_ value: Int32) -> [UInt8] {
        let bits = UInt32(bitPattern: value)
        return [UInt8(bits >> 24), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF)]
    }
}
