import Testing
import Zlib

/// Raw DEFLATE through zlib: what Apple's adjustment data is, and what hostile data must not do.
@Suite("Raw DEFLATE")
struct RawDeflateTests {
    @Test func inflatesWhatZlibDeflated() throws {
        let text = Array(String(repeating: "{\"identifier\":\"Crop\"}", count: 3000).utf8)
        let packed = try RawDeflate.deflate(text)
        #expect(packed.count < text.count / 10)
        #expect(try RawDeflate.inflate(packed, maxOutput: 1 << 20) == text)
        #expect(try RawDeflate.inflate(RawDeflate.deflate([]), maxOutput: 0) == [])
    }

    /// 64 MiB of zeros deflates to about 64 KiB; the cap stops it within one 16 KiB chunk.
    @Test func aBombStopsAtTheCap() throws {
        let bomb = try RawDeflate.deflate([UInt8](repeating: 0, count: 64 << 20), level: 9)
        #expect(bomb.count < 100 << 10)
        let error = #expect(throws: ZlibError.self) { try RawDeflate.inflate(bomb, maxOutput: 1 << 20) }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("more than 1048576 bytes") == true)
        #expect(error.map { $0.inputOffset < bomb.count } == true)
    }

    @Test func refusesTruncatedTrailingAndGarbage() throws {
        let whole = try RawDeflate.deflate(Array("com.apple.photo adjustments".utf8))
        let truncated = #expect(throws: ZlibError.self) {
            try RawDeflate.inflate(Array(whole.dropLast(3)), maxOutput: 1 << 20)
        }
        #expect(truncated?.code == .truncated)
        let trailing = #expect(throws: ZlibError.self) { try RawDeflate.inflate(whole + [0, 1], maxOutput: 1 << 20) }
        #expect(trailing?.code == .trailingBytes && trailing?.inputOffset == whole.count)
        // Block type 3 is reserved: zlib says so, and its message is kept as the cause.
        let garbage = #expect(throws: ZlibError.self) {
            try RawDeflate.inflate([0xFF, 0xFF, 0xFF], maxOutput: 1 << 20)
        }
        #expect(garbage?.code == .malformed && garbage?.libraryMessage != nil)
        let empty = #expect(throws: ZlibError.self) { try RawDeflate.inflate([], maxOutput: 1 << 20) }
        #expect(empty?.code == .truncated)
    }
}
