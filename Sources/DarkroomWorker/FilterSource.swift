import ContentDigest
import DarkroomAdjustments
import DarkroomImaging
import DarkroomStorage

/// Where a render's filter LUTs come from: the storage, by the hash `enqueue_edit` recorded
/// (a worker's; read once and shared by its slots, `FilterTables`), or local `.cube` files
/// (`darkroom render --filter-file`), or, in the decoders' sandbox, the worker's. Either way the bytes are checked and parsed by
/// `FilterLUT.table`.
public enum FilterSource: Sendable {
    case storage(FilterTables, any ObjectStorage, jobID: Int64)
    case files([FilterFile])
    /// A sandboxed render's: the worker that started it loads them (`DecoderSandbox`).
    case delegated(@Sendable ([ImageOperation]) throws -> [ImageOperation])

    /// `operations` with every filter's version, LUT hash and table filled in.
    func attach(_ operations: [ImageOperation]) throws -> [ImageOperation] {
        switch self {
        case .storage(let tables, let storage, let jobID):
            try tables.load(operations, from: storage, jobID: jobID)
        case .files(let files):
            try FilterFile.attach(files, to: operations)
        case .delegated(let attach):
            try attach(operations)
        }
    }
}

/// One LUT's bytes made a table: hashed, checked against the hash an edit recorded, parsed.
enum FilterLUT {
    enum Failure: Error {
        case hashMismatch(found: String)
        case unreadable(CubeError)
    }

    /// The table and the bytes' SHA-256 (lowercase hex, as `darkroom.filters.sha256` holds it).
    static func table(_ bytes: [UInt8], recorded: String?) throws(Failure) -> (table: ColorLookupTable, sha256: String)
    {
        let digest = ContentDigest.sha256(bytes)
        if let recorded, recorded != digest { throw .hashMismatch(found: digest) }
        do {
            return (try CubeFile.parse(bytes), digest)
        } catch {
            throw .unreadable(error)
        }
    }
}
