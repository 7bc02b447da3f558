import Foundation
import LibWebP
import Testing

/// `workingBytes` against what a 2048-pixel encode makes resident. The process's peak resident
/// size is reset (`/proc/self/clear_refs`), the encode runs, and the peak's rise over the size
/// before is read (`VmHWM`, `VmRSS`). That rise is a lower bound of what the encode allocated
/// (memory the allocator already held is reused without a rise) plus whatever other tests
/// allocated meanwhile, so the least of three runs is compared. The bound itself was measured
/// by counting every allocation (see `WebPEncoder.workingBytes`).
@Suite(.serialized) struct WebPMemoryTests {
    static func status(_ field: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(field + ":") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    static func residentRise(_ body: () throws -> Void) throws -> Int {
        let before = try status("VmRSS")
        // "5" resets VmHWM to the current resident size (proc(5)).
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        try body()
        return try status("VmHWM") - before
    }

    /// Black-and-white noise at quality 100, method 0: the content and settings that held the
    /// most when measured (the largest output, every coefficient coded).
    @Test func workingBytesBoundsA2048PixelEncodeOfTheWorstContent() throws {
        let width = 2048
        let height = 2048
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: width * height * 3))
        let pixels = random.map { $0 & 1 == 0 ? 0 : 255 as UInt8 }
        let bound = WebPEncoder.workingBytes(width: width, height: height)
        var rises: [Int] = []
        for _ in 0..<3 {
            var size = 0
            rises.append(
                try Self.residentRise {
                    size = try pixels.withUnsafeBufferPointer { rgb in
                        try WebPEncoder.encode(
                            rgb: rgb, width: width, height: height, settings: WebPSettings(quality: 100, method: 0),
                            metadata: WebPMetadata(), name: "renders/noise.webp"
                        ).count
                    }
                })
            // The output alone is about 3 bytes a pixel: the rise must at least see it.
            #expect(size > width * height * 2)
        }
        // (No lower bound: with other suites running, the allocator may serve every run from
        // memory it already holds, and the rise is then near zero.)
        #expect(try #require(rises.min()) <= bound, "resident rises \(rises) bytes, bound \(bound)")
    }
}
