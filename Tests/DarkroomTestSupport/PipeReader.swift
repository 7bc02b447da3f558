import Foundation

/// Reads a pipe to its end with read(2), retrying on EINTR (Foundation's
/// readDataToEndOfFile traps when a signal interrupts it).
public final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    /// Starts reading `descriptor` on a background thread.
    public init(_ descriptor: Int32) {
        Thread { [self] in
            data = Self.readAll(descriptor)
            done.signal()
        }.start()
    }

    public func result() -> Data {
        done.wait()
        return data
    }

    public static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }
}
