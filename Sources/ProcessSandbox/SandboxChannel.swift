#if canImport(Glibc)
    import Glibc
#endif

/// One message on a sandbox's channel: a kind, the stream or request it concerns, and its bytes.
public struct SandboxFrame: Sendable, Equatable {
    public var kind: UInt8
    public var id: UInt32
    public var payload: [UInt8]

    public init(kind: UInt8, id: UInt32 = 0, payload: [UInt8] = []) {
        self.kind = kind
        self.id = id
        self.payload = payload
    }
}

/// A stream socket carrying frames: a 9-byte header (payload length and id, little-endian
/// 32 bits each, then the kind) and the payload. Every length is checked against `maxPayload`
/// before a byte is allocated: the other side may be hostile. Sending from several threads
/// needs the caller's lock; one frame is written whole before the next.
public final class SandboxChannel: @unchecked Sendable {
    public static let headerBytes = 9
    /// A payload up to this size is copied behind its header and sent with it.
    static let coalescedBytes = 64 << 10
    public let descriptor: Int32
    public let maxPayload: Int
    /// Called when a read or write waits longer than the socket's timeout (set on the parent's
    /// end): it may throw to give up (a cancelled render), or drain what else the child writes.
    private let whileWaiting: (() throws -> Void)?

    /// Takes ownership of `descriptor`, which is closed when the channel goes.
    public init(descriptor: Int32, maxPayload: Int, whileWaiting: (() throws -> Void)? = nil) {
        self.descriptor = descriptor
        self.maxPayload = maxPayload
        self.whileWaiting = whileWaiting
    }

    deinit { close(descriptor) }

    public func send(_ frame: SandboxFrame) throws {
        try frame.payload.withUnsafeBytes { try send(kind: frame.kind, id: frame.id, payload: $0) }
    }

    public func send(kind: UInt8, id: UInt32 = 0, payload: UnsafeRawBufferPointer) throws {
        guard payload.count <= maxPayload else {
            throw SandboxError(.protocolViolation, "a frame of \(payload.count) bytes is over \(maxPayload)")
        }
        // Header and a small payload in one write: one wake-up of the other side, not two.
        var frame = [UInt8](repeating: 0, count: Self.headerBytes)
        Self.store(UInt32(payload.count), at: 0, in: &frame)
        Self.store(id, at: 4, in: &frame)
        frame[8] = kind
        if payload.count <= Self.coalescedBytes {
            frame.append(contentsOf: payload)
            try frame.withUnsafeBytes { try writeAll($0) }
        } else {
            try frame.withUnsafeBytes { try writeAll($0) }
            try writeAll(payload)
        }
    }

    /// The next frame, or nil when the other side closed the channel between frames.
    public func receive() throws -> SandboxFrame? {
        var header = [UInt8](repeating: 0, count: Self.headerBytes)
        let got = try header.withUnsafeMutableBytes { try readAll($0) }
        if got == 0 { return nil }
        guard got == Self.headerBytes else {
            throw SandboxError(.protocolViolation, "the channel closed inside a frame's header")
        }
        let length = Int(Self.load(at: 0, in: header))
        guard length <= maxPayload else {
            throw SandboxError(.protocolViolation, "a frame announces \(length) bytes, over \(maxPayload)")
        }
        // Not zeroed first: a megabyte a frame, overwritten at once.
        let payload = try [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            initialized = try readAll(UnsafeMutableRawBufferPointer(buffer))
        }
        guard payload.count == length else {
            throw SandboxError(.protocolViolation, "the channel closed inside a frame of \(length) bytes")
        }
        return SandboxFrame(kind: header[8], id: Self.load(at: 4, in: header), payload: payload)
    }

    /// Reads until `buffer` is full or the channel ends; returns the bytes read.
    private func readAll(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if got > 0 {
                filled += got
            } else if got == 0 {
                return filled
            } else {
                try waited(errno, doing: "read")
            }
        }
        return filled
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            // Never SIGPIPE: a child that died must not take its parent with it.
            let wrote = Glibc.send(descriptor, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if wrote > 0 {
                done += wrote
            } else {
                try waited(wrote < 0 ? errno : EPIPE, doing: "write")
            }
        }
    }

    private func waited(_ error: Int32, doing what: String) throws {
        switch error {
        case EINTR: return
        case EAGAIN, EWOULDBLOCK:
            guard let whileWaiting else {
                throw SandboxError(.channelClosed, "cannot \(what) the channel", errno: error)
            }
            try whileWaiting()
        default: throw SandboxError(.channelClosed, "cannot \(what) the channel", errno: error)
        }
    }

    private static func store(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    private static func load(at offset: Int, in bytes: [UInt8]) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
