import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetadata
import Foundation
import ProcessSandbox

/// Where a worker's renders run: in a child process per render that holds no credential and can
/// open no file (docs/hostile-input.md), started from `executable` as `darkroom decode-sandbox`.
/// The worker keeps everything the child may not have (the storage, the database, the budget,
/// the filters) and answers the child's requests for bytes, memory and tables; the child runs
/// the same `LayerRenderer` as an in-process render and sends back a `LayerOutcome`.
public struct DecoderSandbox: Sendable {
    /// How each child starts.
    public enum Start: String, Sendable, CaseIterable {
        /// Forked by the worker's zygote, its codecs already started: a fork, not an exec. Every
        /// child shares the zygote's address layout.
        case zygote
        /// Exec'd afresh: about 40 ms more CPU per render, and an address layout of its own.
        case fresh
    }

    /// The darkroom executable the child runs (a worker's own: /proc/self/exe).
    public let executable: String
    public let start: Start
    private let zygote: SandboxZygote?
    /// The hidden command that makes an executable the child (`darkroom decode-sandbox`), and
    /// with `zygoteArgument` the zygote.
    public static let command = "decode-sandbox"
    public static let zygoteArgument = "zygote"
    /// The child's whole environment: no variable of the worker's reaches it. A child's memory
    /// is all new, so its malloc is set to keep what it has: one arena (a child renders one job),
    /// no trimming, and heap blocks up to 32 MiB (the most glibc's own threshold grows to in a
    /// long-lived worker). A HEIC's child takes 26 % fewer page faults and 3 % less CPU, at the
    /// same peak; huge pages made it dearer (docs/benchmarks.md).
    static let environment = [
        "SWIFT_BACKTRACE=enable=no",
        "GLIBC_TUNABLES=glibc.malloc.arena_max=1:glibc.malloc.trim_threshold=1073741824:"
            + "glibc.malloc.mmap_threshold=33554432",
    ]

    public init(executable: String = "/proc/self/exe", start: Start = .zygote) {
        self.executable = executable
        self.start = start
        zygote =
            start == .zygote
            ? SandboxZygote(
                executable: executable, arguments: [Self.command, Self.zygoteArgument], environment: Self.environment)
            : nil
    }

    /// The zygote's pid while one runs.
    var zygotePID: pid_t? { zygote?.pid }

    /// How the next child starts.
    var childStart: SandboxedProcess.Start {
        if let zygote { return .fork(zygote) }
        return .spawn(executable: executable, arguments: [Self.command], environment: Self.environment)
    }

    /// Starts a child and waits for it to say it is confined: what a worker checks before it
    /// claims a job, so a kernel without seccomp stops the worker, not every job. Throws a
    /// `SandboxViolation` saying what went wrong.
    public func check() throws {
        let process: SandboxedProcess
        do {
            process = try SandboxedProcess(childStart, maxPayload: SandboxMessage.maxPayload)
        } catch {
            throw SandboxViolation.unavailable(error)
        }
        defer {
            process.kill()
            _ = process.wait()
        }
        let answer: SandboxFrame?
        do {
            try process.channel.send(SandboxFrame(kind: SandboxMessage.probe.rawValue))
            answer = try process.channel.receive()
        } catch {
            answer = nil
        }
        switch answer.flatMap({ SandboxMessage(rawValue: $0.kind) }) {
        case .ready: return
        case .failed:
            let failure = try? JSONDecoder().decode(ChildFailure.self, from: Data(answer!.payload))
            throw SandboxViolation.unavailable(
                SandboxError(
                    .confinementFailed, Bounds.escaped(failure?.message ?? "the child could not confine itself")))
        default:
            process.kill()
            throw SandboxViolation(process.wait(), deniedCall: process.deniedSystemCall, errors: process.errorOutput)
        }
    }

    /// A dashboard's thumbnail (`Renderer.thumbnail`) of what `open` reads (twice: the header,
    /// then the pixels), made in a child, written to `output`. Throws the storage's errors, the
    /// child's (a `JobFailure` whose message names `name`), or a `SandboxViolation`.
    public func thumbnail(
        of name: String, longestSide: Int, orientation: Orientation, quality: Int, memoryBudget: Int,
        open: @escaping () throws -> any ByteSource, to output: any ObjectUpload, scratchDirectory: String,
        bufferedBytesPerStream: Int
    ) throws {
        let settings = RenderSettings(quality: quality, memoryBudget: memoryBudget)
        let job = SandboxJob(
            adjustment: nil,
            thumbnail: ThumbnailMessage(
                longestSide: longestSide, orientation: orientation.rawValue, quality: quality,
                memoryBudget: memoryBudget),
            startOrientation: nil, isReplay: false, settings: settings, withRenditions: false,
            scratchDirectory: scratchDirectory, bufferedBytesPerStream: bufferedBytesPerStream, inputName: name,
            uploadNames: [output.objectName], input: nil, jobID: 0, adjustmentID: nil)
        var streams = LayerRenderer.Streams(
            input: try open(), reopen: open, output: output, renditions: [], scratchDirectory: scratchDirectory)
        streams.bufferedBytesPerStream = bufferedBytesPerStream
        _ = try render(
            job, streams: streams,
            services: Services(
                table: { _ in throw SandboxError(.protocolViolation, "a thumbnail asked for a filter") },
                admission: nil))
    }

    /// An import's facts of a photo (`PhotoFacts`): its header and metadata, read in a child
    /// from what `open` reads. Throws the stream's own errors, else a `PhotoFactsError`: the
    /// facts cannot be read, or (`.decodingFailed`) the child crashed, was stopped by its filter,
    /// broke the channel's rules or could not start.
    public func facts(of name: String, open: @escaping () throws -> any ByteSource) throws -> PhotoFacts {
        let answer = try read(.photoFacts, of: name, open: open)
        // What the child wrote may be made up: its words are escaped as every line from it is.
        if var facts = answer.facts {
            facts.warnings = facts.warnings.map(Bounds.escaped)
            facts.metadata.creationDateSource = facts.metadata.creationDateSource.map(Bounds.escaped)
            facts.metadata.cameraMake = facts.metadata.cameraMake.map(Bounds.escaped)
            facts.metadata.cameraModel = facts.metadata.cameraModel.map(Bounds.escaped)
            return facts
        }
        throw PhotoFactsError(
            answer.refusal.flatMap { PhotoFactsError.Code(rawValue: $0.code) } ?? .notAPhoto, object: name,
            message: Bounds.escaped(answer.refusal?.message ?? ""))
    }

    /// An import's Apple sidecar (`AppleSidecar.decodeForImport`), read in a child from what
    /// `open` reads. Throws the stream's own errors, an `AdjustmentError` for a sidecar that is
    /// refused, or a `PhotoFactsError` (`.decodingFailed`) when the child failed.
    public func sidecar(of name: String, open: @escaping () throws -> any ByteSource) throws -> AppleSidecar {
        let answer = try read(.appleSidecar, of: name, open: open)
        if let sidecar = answer.sidecar {
            guard sidecar.data.count <= AppleSidecar.maxBytes else {
                throw PhotoFactsError(.decodingFailed, object: name, message: "the decoding process answered too much")
            }
            return sidecar
        }
        throw AdjustmentError(
            answer.refusal.flatMap { AdjustmentError.Code(rawValue: $0.code) } ?? .malformedData,
            Bounds.escaped(answer.refusal?.message ?? ""))
    }

    /// Runs a reading job on what `open` reads; a child that failed is a `PhotoFactsError`.
    private func read(_ reading: SandboxReading, of name: String, open: @escaping () throws -> any ByteSource)
        throws -> ReadingAnswer
    {
        var job = SandboxJob(
            adjustment: nil, startOrientation: nil, isReplay: false, settings: RenderSettings(), withRenditions: false,
            scratchDirectory: "", bufferedBytesPerStream: 0, inputName: name, uploadNames: [], input: nil, jobID: 0,
            adjustmentID: nil)
        job.reading = reading
        let streams = LayerRenderer.Streams(
            input: try open(), reopen: open, output: nil, renditions: [], scratchDirectory: "")
        let services = Services(
            table: { _ in throw SandboxError(.protocolViolation, "a reading asked for a filter") }, admission: nil)
        let answer: Session.Answer
        do {
            answer = try run(job, streams: streams, services: services)
        } catch let violation as SandboxViolation {
            throw PhotoFactsError(.decodingFailed, object: name, message: violation.description)
        }
        switch answer {
        case .reading(let answer):
            let kinds: [SandboxReading: Bool] = [
                .photoFacts: answer.facts != nil, .appleSidecar: answer.sidecar != nil,
            ]
            guard answer.refusal != nil || kinds[reading] == true else {
                throw PhotoFactsError(
                    .decodingFailed, object: name,
                    message: SandboxViolation.protocolBroken(SandboxError(.protocolViolation, "another reading"))
                        .description)
            }
            return answer
        case .failure(let failure): throw PhotoFactsError(.decodingFailed, object: name, message: failure.message)
        case .outcome:
            throw PhotoFactsError(
                .decodingFailed, object: name,
                message: SandboxViolation.protocolBroken(SandboxError(.protocolViolation, "a render's outcome"))
                    .description)
        }
    }

    /// A child's memory after a render: its peak, and what its plan reserved from the budget.
    public struct ChildMemory: Sendable, Equatable {
        /// The child's peak resident set (`ru_maxrss`): the render's memory, and the pages it
        /// shares with the zygote and the code it ran.
        public var peakBytes: Int
        /// The plan's price the child asked the budget for; nil for a child that reserved none.
        public var reservedBytes: Int?
    }

    /// What the worker does for the child: tables by filter, memory from its budget.
    struct Services {
        var table: (FilterQuery) throws -> ColorLookupTable
        var admission: (any MemoryAdmission)?
        /// Told the child's memory once it has been reaped, however its render ended.
        var measured: (ChildMemory) -> Void = { _ in }
    }

    /// Runs `job` in a child, serving `streams`. Throws what the worker itself met (the
    /// storage's `StreamError`, a filter's `JobFailure`, the budget's `RenderError`), else the
    /// child's own `ChildFailure`, else a `SandboxViolation` when the child crashed, was stopped
    /// by its filter or broke the channel's rules. Uploads not committed are aborted.
    func render(_ job: SandboxJob, streams: LayerRenderer.Streams, services: Services) throws -> LayerOutcome {
        switch try run(job, streams: streams, services: services) {
        case .outcome(let outcome): return outcome
        case .failure(let failure): throw failure
        case .reading: throw SandboxViolation.protocolBroken(SandboxError(.protocolViolation, "a reading for a render"))
        }
    }

    /// Runs `job` in a child, serving `streams`, until its last word.
    private func run(_ job: SandboxJob, streams: LayerRenderer.Streams, services: Services) throws -> Session.Answer {
        var job = job
        var inheritedBytes: Int?
        let uploads = (streams.output.map { [$0] } ?? []) + streams.renditions.map(\.upload)
        let process: SandboxedProcess
        do {
            // A regular file unread yet goes to the child whole, read-only: it reads what it
            // needs itself, and none of it crosses the channel. Local files not written yet go
            // the same way, for it to write: the worker publishes them once it has ended.
            process = try streams.input.withUnreadFile { (input) throws(SandboxError) in
                var info = stat()
                if let input, fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                    inheritedBytes = Int(info.st_size)
                }
                return try Self.withUnwrittenFiles(uploads) { (outputs) throws(SandboxError) in
                    job.inheritedUploads = outputs.map(\.index)
                    return try SandboxedProcess(
                        childStart, input: inheritedBytes == nil ? nil : input, outputs: outputs.map(\.descriptor),
                        maxFileBytes: job.settings.limits.maxFileBytes, maxPayload: SandboxMessage.maxPayload
                    ) {
                        if streams.isCancelled() { throw RenderError.cancelled }
                    }
                }
            }
        } catch {
            throw SandboxViolation.unavailable(error)
        }
        job.inputIsInherited = inheritedBytes != nil
        var session = Session(
            streams: streams, uploads: uploads, inheritedUploads: Set(job.inheritedUploads), services: services,
            channel: process.channel, inheritedInputBytes: inheritedBytes)
        session.commitsEveryUpload = job.commitsEveryUpload
        defer {
            session.end()
            if let peak = process.peakResidentBytes {
                services.measured(ChildMemory(peakBytes: peak, reservedBytes: session.price))
            }
        }
        do {
            try process.channel.send(
                SandboxFrame(kind: SandboxMessage.job.rawValue, payload: Array(try JSONEncoder().encode(job))))
            while let frame = try process.channel.receive() {
                // A busy child is never quiet long enough for the channel's own check.
                if streams.isCancelled() { throw RenderError.cancelled }
                if let answer = try session.serve(frame) {
                    // The child has nothing left to do, so it is ended now rather than trusted to
                    // exit, and nothing writes the files it was given once it has been reaped.
                    process.kill()
                    _ = process.wait()
                    if case .outcome = answer { try session.publishInherited() }
                    return answer
                }
            }
        } catch let error as SandboxError where error.code == .channelClosed {
            // The child is gone: how it ended says why.
        } catch let error as SandboxError {
            process.kill()
            _ = process.wait()
            throw SandboxViolation.protocolBroken(error)
        } catch {
            process.kill()
            _ = process.wait()
            throw error
        }
        process.kill()
        throw SandboxViolation(process.wait(), deniedCall: process.deniedSystemCall, errors: process.errorOutput)
    }
}

extension DecoderSandbox {
    /// Runs `body` with the descriptors of the uploads from `first` on that write a local file
    /// not written yet (at most `Sandbox.maxOutputs`), each with its upload's index.
    fileprivate static func withUnwrittenFiles<Result>(
        _ uploads: [any ObjectUpload], from first: Int = 0, lent: [(index: Int, descriptor: Int32)] = [],
        _ body: ([(index: Int, descriptor: Int32)]) throws(SandboxError) -> Result
    ) throws(SandboxError) -> Result {
        guard first < uploads.count, lent.count < Sandbox.maxOutputs else { return try body(lent) }
        return try uploads[first].withUnwrittenFile { (descriptor) throws(SandboxError) in
            try withUnwrittenFiles(
                uploads, from: first + 1, lent: lent + (descriptor.map { [(first, $0)] } ?? []), body)
        }
    }
}

/// One render's requests, served: the streams it reads, the uploads it writes, the memory it holds.
private struct Session {
    enum Answer {
        case outcome(LayerOutcome)
        case reading(ReadingAnswer)
        case failure(JobFailure)
    }

    let streams: LayerRenderer.Streams
    let services: Services
    typealias Services = DecoderSandbox.Services
    var sources: [any ByteSource]
    /// 0: the full-size render (when there is one), then each rendition.
    let uploads: [any ObjectUpload]
    /// The uploads whose files the child writes itself, and what it said it wrote to each it
    /// committed: published once it has ended (`publishInherited`).
    let inheritedUploads: Set<Int>
    var claimed: [Int: Int] = [:]
    var finished = Set<Int>()
    var committed = Set<Int>()
    /// Whether an outcome must come after every upload's commit (`SandboxJob.commitsEveryUpload`):
    /// a record never names a file that was not written.
    var commitsEveryUpload = false
    var reservation: MemoryReservation?
    /// What the child's plan asked the budget for, granted or not.
    var price: Int?
    let channel: SandboxChannel
    /// The size of the input the child was given to read itself, if it was.
    let inheritedInputBytes: Int?
    var inputReadCounted = false

    init(
        streams: LayerRenderer.Streams, uploads: [any ObjectUpload], inheritedUploads: Set<Int>, services: Services,
        channel: SandboxChannel, inheritedInputBytes: Int?
    ) {
        self.streams = streams
        self.uploads = uploads
        self.inheritedUploads = inheritedUploads
        self.services = services
        self.channel = channel
        self.inheritedInputBytes = inheritedInputBytes
        sources = [streams.input]
    }

    /// Gives back the memory and aborts what was not committed, however the render ended. Runs
    /// after the child has been reaped.
    mutating func end() {
        if let reservation { services.admission?.release(reservation) }
        reservation = nil
        for (index, upload) in uploads.enumerated() where !finished.contains(index) { upload.abort() }
    }

    /// Publishes the files the child wrote itself and committed, each holding exactly the bytes
    /// it said: call it once the child has been reaped.
    mutating func publishInherited() throws {
        for (index, bytes) in claimed.sorted(by: { $0.key < $1.key }) {
            uploads[index].countWrittenElsewhere(bytes)
            do {
                try uploads[index].commit()
            } catch {
                throw RenderError.output(error)
            }
            finished.insert(index)
        }
        claimed = [:]
    }

    /// Answers one frame; returns the child's last word when this was it.
    mutating func serve(_ frame: SandboxFrame) throws -> Answer? {
        guard let message = SandboxMessage(rawValue: frame.kind) else {
            throw SandboxError(.protocolViolation, "a frame of unknown kind \(frame.kind)")
        }
        switch message {
        case .read:
            let source = try stream(frame.id)
            guard frame.payload.count == 4 else { throw SandboxError(.protocolViolation, "a read without its count") }
            let wanted = frame.payload.reversed().reduce(0) { $0 << 8 | Int($1) }
            let bytes = try [UInt8](unsafeUninitializedCapacity: min(max(wanted, 1), SandboxMessage.chunkBytes)) {
                buffer, initialized in initialized = try source.read(into: UnsafeMutableRawBufferPointer(buffer))
            }
            try reply(.data, id: frame.id, bytes)
        case .reopen:
            guard sources.count < SandboxMessage.maxInputStreams else {
                throw SandboxError(.protocolViolation, "the input opened again and again")
            }
            sources.append(try streams.reopen())
            try reply(.opened, id: UInt32(sources.count - 1))
        case .write:
            guard !inheritedUploads.contains(Int(frame.id)) else {
                throw SandboxError(.protocolViolation, "bytes sent for a file it writes itself")
            }
            try frame.payload.withUnsafeBytes { bytes in
                do {
                    try upload(frame.id).write(bytes)
                } catch let error as StreamError {
                    throw RenderError.output(error)
                }
            }
        case .commit where inheritedUploads.contains(Int(frame.id)):
            _ = try upload(frame.id)
            guard let bytes = UInt64(littleEndianBytes: frame.payload), bytes <= UInt64(Int.max) else {
                throw SandboxError(.protocolViolation, "a commit without the bytes it wrote")
            }
            claimed[Int(frame.id)] = Int(bytes)
            committed.insert(Int(frame.id))
            try reply(.committed, id: frame.id, bytes.littleEndianBytes)
        case .commit:
            guard frame.payload.isEmpty else { throw SandboxError(.protocolViolation, "a commit with a payload") }
            let index = Int(frame.id)
            let target = try upload(frame.id)
            let bytes: Int
            do {
                bytes = try target.commit()
            } catch {
                throw RenderError.output(error)
            }
            finished.insert(index)
            committed.insert(index)
            try reply(.committed, id: frame.id, UInt64(bytes).littleEndianBytes)
        case .abort:
            try upload(frame.id).abort()
            finished.insert(Int(frame.id))
        case .reserve:
            guard self.price == nil, let price = UInt64(littleEndianBytes: frame.payload), price <= Int.max else {
                throw SandboxError(.protocolViolation, "a second or malformed reservation")
            }
            self.price = Int(price)
            reservation = try services.admission?.reserve(Int(price), isCancelled: streams.isCancelled)
            try reply(.granted)
        case .inputRead:
            // Each of its streams reads the file once at most.
            guard let size = inheritedInputBytes, !inputReadCounted,
                let count = UInt64(littleEndianBytes: frame.payload),
                count <= UInt64(size) * UInt64(SandboxMessage.maxInputStreams)
            else { throw SandboxError(.protocolViolation, "a second read count, or one out of bounds") }
            inputReadCounted = true
            streams.input.countReadElsewhere(Int(count))
        case .filter:
            let query = try Self.decode(FilterQuery.self, frame)
            try reply(.table, FilterTableMessage.encode(try services.table(query)))
        case .outcome:
            let outcome = try Self.decode(LayerOutcome.self, frame)
            guard outcome.isWithinBounds(renditions: streams.renditions.count) else {
                throw SandboxError(.protocolViolation, "an outcome out of bounds")
            }
            guard !commitsEveryUpload || committed.count == uploads.count else {
                throw SandboxError(.protocolViolation, "an outcome before every file was committed")
            }
            return .outcome(outcome)
        case .reading:
            let answer = try Self.decode(ReadingAnswer.self, frame)
            let read = [answer.facts != nil, answer.sidecar != nil, answer.refusal != nil].filter { $0 }.count
            guard read == 1, answer.facts?.isWithinBounds ?? true else {
                throw SandboxError(.protocolViolation, "a reading out of bounds")
            }
            return .reading(answer)
        case .failed:
            let failure = try Self.decode(ChildFailure.self, frame)
            return .failure(
                JobFailure(
                    code: FailureCode(rawValue: failure.code) ?? .renderFailed,
                    message: Bounds.escaped(failure.message), isPermanent: failure.isPermanent))
        case .job, .data, .opened, .committed, .granted, .table, .probe, .ready:
            throw SandboxError(.protocolViolation, "the child sent a worker's frame (\(message))")
        }
        return nil
    }

    /// A message the child wrote: JSON it may have made up, so any fault in it breaks the rules.
    private static func decode<Message: Decodable>(_ type: Message.Type, _ frame: SandboxFrame) throws -> Message {
        do {
            return try JSONDecoder().decode(type, from: Data(frame.payload))
        } catch {
            throw SandboxError(.protocolViolation, "a \(type) that does not read as one")
        }
    }

    private func stream(_ id: UInt32) throws -> any ByteSource {
        guard Int(id) < sources.count else { throw SandboxError(.protocolViolation, "no stream \(id)") }
        return sources[Int(id)]
    }

    private func upload(_ id: UInt32) throws -> any ObjectUpload {
        guard Int(id) < uploads.count, !finished.contains(Int(id)), claimed[Int(id)] == nil else {
            throw SandboxError(.protocolViolation, "no open upload \(id)")
        }
        return uploads[Int(id)]
    }

    private func reply(_ message: SandboxMessage, id: UInt32 = 0, _ payload: [UInt8] = []) throws {
        try channel.send(SandboxFrame(kind: message.rawValue, id: id, payload: payload))
    }
}
