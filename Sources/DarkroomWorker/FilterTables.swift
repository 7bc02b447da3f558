import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Synchronization

/// The LUTs of filter versions a worker has read, by the SHA-256 `enqueue_edit` wrote beside
/// each version in the job's data: each is read from the storage, checked against its hash and
/// parsed once, then shared by every slot. At most `maxBytes` of tables are kept (the oldest
/// read goes first); a render counts the tables it uses in its plan (`MemoryEstimate.tables`).
public final class FilterTables: Sendable {
    public static let defaultMaxBytes = 64 << 20
    public let maxBytes: Int
    private let state = Mutex(Cache())

    struct Cache {
        var tables: [String: ColorLookupTable] = [:]
        var order: [String] = []
        var bytes = 0
    }

    public init(maxBytes: Int = FilterTables.defaultMaxBytes) {
        self.maxBytes = maxBytes
    }

    /// Hashes of the tables held now, oldest first.
    public var held: [String] { state.withLock { $0.order } }

    /// `operations` with every filter's table attached, read through `storage` when not held.
    func load(_ operations: [ImageOperation], from storage: any ObjectStorage, jobID: Int64) throws(JobFailure)
        -> [ImageOperation]
    {
        var loaded = operations
        for (index, operation) in operations.enumerated() {
            guard case .filter(var step) = operation else { continue }
            step.table = try table(for: step, index: index, from: storage, jobID: jobID)
            loaded[index] = .filter(step)
        }
        return loaded
    }

    func table(for step: FilterStep, index: Int, from storage: any ObjectStorage, jobID: Int64) throws(JobFailure)
        -> ColorLookupTable
    {
        guard let digest = step.sha256, step.version != nil else {
            throw .permanent(
                code: .filterMissing,
                message:
                    "job \(jobID): operation \(index) names filter \(step.label) without the version and LUT hash "
                    + "darkroom.enqueue_edit writes; queue the edit through enqueue_edit")
        }
        if let table = state.withLock({ $0.tables[digest] }) { return table }
        let key = StorageLayout.filter(sha256: digest)
        let bytes = try read(key, from: storage, step: step, jobID: jobID)
        let table: ColorLookupTable
        do {
            table = try FilterLUT.table(bytes, recorded: digest).table
        } catch {
            switch error {
            case .hashMismatch(let found):
                throw .permanent(
                    code: .filterHashMismatch,
                    message:
                        "job \(jobID): filter \(step.label): \(key) has SHA-256 \(found), not the \(digest) recorded "
                        + "when the version was added; the stored LUT was changed or damaged: store the original "
                        + "bytes again (darkroom filter add refuses a new version with the old name and version)")
            case .unreadable(let error):
                throw .permanent(
                    code: .filterUnreadable,
                    message: "job \(jobID): filter \(step.label): \(key): \(error) [\(error.code.rawValue)]",
                    cause: error)
            }
        }
        state.withLock { cache in
            guard cache.tables[digest] == nil else { return }
            cache.tables[digest] = table
            cache.order.append(digest)
            cache.bytes += table.byteCount
            while cache.bytes > maxBytes, cache.order.count > 1 {
                let oldest = cache.order.removeFirst()
                cache.bytes -= cache.tables.removeValue(forKey: oldest)?.byteCount ?? 0
            }
        }
        return table
    }

    /// The whole object, refused past the largest LUT the reader accepts.
    func read(_ key: StorageKey, from storage: any ObjectStorage, step: FilterStep, jobID: Int64) throws(JobFailure)
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        do {
            let source = try storage.openForReading(key)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let got = try chunk.withUnsafeMutableBytes { buffer throws(StreamError) in try source.read(into: buffer)
                }
                if got == 0 { break }
                bytes += chunk[..<got]
                guard bytes.count <= CubeFile.maxBytes else {
                    throw JobFailure.permanent(
                        code: .filterUnreadable,
                        message: "job \(jobID): filter \(step.label): \(key) is larger than \(CubeFile.maxBytes) bytes"
                    )
                }
            }
        } catch let failure as JobFailure {
            throw failure
        } catch let error as StreamError where error.code == .notFound {
            throw .permanent(
                code: .filterMissing,
                message:
                    "job \(jobID): filter \(step.label): its LUT \(key) is missing from the storage; "
                    + "store it again with darkroom filter add (the same bytes go to the same key)",
                cause: error)
        } catch let error as StreamError {
            throw RenderJobRunner.failure(error, doing: "cannot read the LUT of filter \(step.label)")
        } catch {
            throw .transient(code: .storageIO, message: "\(key): \(error)", cause: error)
        }
        return bytes
    }
}
