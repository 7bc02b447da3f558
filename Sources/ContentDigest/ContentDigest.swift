import Crypto

/// SHA-256 as the storage names content by it (originals, filter LUTs) and as S3 signs a
/// payload: 64 lowercase hex digits.
public enum ContentDigest {
    public static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        hex(SHA256.hash(data: Array(bytes)))
    }

    public static func sha256(_ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return hex(hasher.finalize())
    }

    public static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(SHA256.Digest.byteCount * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
