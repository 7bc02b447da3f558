internal import CZlib

/// What zlib refused while inflating, with the byte offset in the compressed input it had
/// reached and zlib's own message (`z_stream.msg`) as the cause when it gave one.
public struct ZlibError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The bytes are not a DEFLATE stream (a bad block type, distance or code table).
        case malformed = "malformed_deflate"
        /// The stream stops before its last block.
        case truncated = "truncated_deflate"
        /// More bytes follow the stream's last block.
        case trailingBytes = "bytes_after_deflate"
        /// Inflating would exceed the caller's cap (a DEFLATE bomb, or data far larger than its kind).
        case tooLarge = "inflated_too_large"
        case outOfMemory = "out_of_memory"
    }

    public var code: Code
    public var message: String
    /// Bytes of the compressed input consumed when zlib stopped.
    public var inputOffset: Int
    public var libraryMessage: String?

    public var description: String {
        message + (libraryMessage.map { " (zlib: \($0))" } ?? "")
    }
}

/// Raw DEFLATE (RFC 1951: no zlib header, no checksum), as Apple's `com.apple.photo`
/// adjustment data and other `NSData` compressions store it.
public enum RawDeflate {
    /// Output is produced in chunks of this size, so a bomb is stopped within one chunk of the cap.
    static let chunk = 16 << 10

    /// The inflated bytes of `input`, which must be exactly one DEFLATE stream. Throws
    /// `.tooLarge` as soon as the output would pass `maxOutput` bytes: memory is bounded by
    /// the cap, never by what the stream claims.
    public static func inflate(_ input: [UInt8], maxOutput: Int) throws(ZlibError) -> [UInt8] {
        var stream = z_stream()
        guard dr_inflate_init_raw(&stream) == Z_OK else {
            throw ZlibError(code: .outOfMemory, message: "zlib could not start inflating", inputOffset: 0)
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        var status = Z_OK
        var consumed = 0
        repeat {
            var produced = 0
            input.withUnsafeBufferPointer { source in
                buffer.withUnsafeMutableBufferPointer { target in
                    stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress.map { $0 + consumed })
                    stream.avail_in = UInt32(source.count - consumed)
                    stream.next_out = target.baseAddress
                    stream.avail_out = UInt32(target.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    consumed = source.count - Int(stream.avail_in)
                    produced = target.count - Int(stream.avail_out)
                    // The pointers point into these buffers: none may outlive this scope.
                    stream.next_in = nil
                    stream.next_out = nil
                }
            }
            guard produced <= maxOutput - output.count else {
                throw ZlibError(
                    code: .tooLarge,
                    message:
                        "DEFLATE data inflates to more than \(maxOutput) bytes (stopped at input byte \(consumed))",
                    inputOffset: consumed)
            }
            output.append(contentsOf: buffer[0..<produced])
            switch status {
            case Z_OK, Z_STREAM_END:
                break
            case Z_BUF_ERROR where produced == 0 && consumed == input.count:
                throw ZlibError(
                    code: .truncated,
                    message: "DEFLATE data ends at byte \(input.count) before its last block: truncated?",
                    inputOffset: consumed)
            case Z_MEM_ERROR:
                throw ZlibError(code: .outOfMemory, message: "zlib ran out of memory inflating", inputOffset: consumed)
            default:
                throw ZlibError(
                    code: .malformed, message: "DEFLATE data is malformed at or before input byte \(consumed)",
                    inputOffset: consumed, libraryMessage: stream.msg.map { String(cString: $0) })
            }
        } while status != Z_STREAM_END
        guard consumed == input.count else {
            throw ZlibError(
                code: .trailingBytes,
                message: "\(input.count - consumed) bytes follow the DEFLATE stream, which ends at byte \(consumed)",
                inputOffset: consumed)
        }
        return output
    }

    /// `input` as one raw DEFLATE stream at `level` (0–9): what a test or a fuzz seed needs
    /// to make data of Apple's kind.
    public static func deflate(_ input: [UInt8], level: Int = 6) throws(ZlibError) -> [UInt8] {
        var stream = z_stream()
        guard (0...9).contains(level), dr_deflate_init_raw(&stream, Int32(level)) == Z_OK else {
            throw ZlibError(
                code: .outOfMemory, message: "zlib could not start deflating at level \(level)", inputOffset: 0)
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))))
        var status = Z_OK
        let written = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                // deflateBound is enough room for one Z_FINISH call.
                status = CZlib.deflate(&stream, Z_FINISH)
                stream.next_in = nil
                stream.next_out = nil
                return target.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else {
            throw ZlibError(code: .outOfMemory, message: "zlib could not deflate (status \(status))", inputOffset: 0)
        }
        return Array(output[0..<written])
    }
}
