import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import Foundation
import ProcessSandbox
import Synchronization

/// The decoding child's side of `DecoderSandbox`: it confines itself, reads its job, renders
/// it through the same `LayerRenderer` a worker uses, with every stream, the memory and the
/// filters' tables asked of the worker over the channel on descriptor 0, then says how it went
/// and exits. It holds no credential and can open no file, so a decoder that a crafted photo
/// takes over can reach only this channel.
public enum DecoderSandboxChild {
    /// Serves as the worker's zygote (`SandboxZygote`): starts the codecs once, then forks a
    /// child per render, each of which runs `run`. Never returns.
    public static func serveAsZygote() -> Never {
        Codecs.start()
        warmUp()
        Sandbox.serveAsZygote { DecoderSandboxChild.run() }
    }

    /// Reads and writes the channel's JSON once, so that the runtime's first lookups of the
    /// codecs' conformances (a scan of every conformance in the executable) are made here and
    /// inherited by every child instead of being made by each.
    static func warmUp() {
        let job = SandboxJob(
            adjustment: EncodedAdjustmentMessage(formatIdentifier: "", formatVersion: "", data: Data()),
            startOrientation: nil, isReplay: false,
            settings: RenderSettings(), withRenditions: false, scratchDirectory: "",
            bufferedBytesPerStream: 0, inputName: "", uploadNames: [], input: InputMessage(kind: "", key: ""),
            jobID: 0,
            adjustmentID: nil)
        _ = try? JSONDecoder().decode(SandboxJob.self, from: JSONEncoder().encode(job))
        _ = try? JSONEncoder().encode(["": 0])
        _ = try? JSONEncoder().encode(ChildFailure(code: "", message: "", isPermanent: false))
    }

    /// Runs the child; returns its exit status.
    public static func run() -> Int32 {
        Codecs.start()
        let link = ParentLink(SandboxChannel(descriptor: 0, maxPayload: SandboxMessage.maxPayload))
        do {
            try Sandbox.enter()
        } catch {
            link.fail(ChildFailure(code: FailureCode.sandboxFailed.rawValue, message: "\(error)", isPermanent: false))
            return 1
        }
        let received = Result { try link.channel.receive() }
        if case .success(let frame?) = received, frame.kind == SandboxMessage.probe.rawValue {
            try? link.post(.ready)
            return 0
        }
        let job: SandboxJob
        let settings: RenderSettings
        let input: RenderInput?
        do {
            guard let frame = try received.get() else { throw SandboxError(.channelClosed, "the channel closed") }
            guard frame.kind == SandboxMessage.job.rawValue else {
                throw SandboxError(.protocolViolation, "a frame of kind \(frame.kind) came first")
            }
            job = try JSONDecoder().decode(SandboxJob.self, from: Data(frame.payload))
            guard job.input == nil || job.input?.renderInput != nil else {
                throw SandboxError(.protocolViolation, "an input this build does not know")
            }
            (settings, input) = (job.settings, job.input?.renderInput)
        } catch {
            link.fail(
                ChildFailure(
                    code: FailureCode.sandboxFailed.rawValue,
                    message: "the decoding process got no job it could read: \(error)", isPermanent: false))
            return 2
        }
        // What the child read of a file it was given is told before its last word, on which
        // the worker ends it.
        let inherited = job.inputIsInherited ? InheritedInput(objectName: job.inputName) : nil
        if let reading = job.reading {
            do {
                let answer = read(
                    reading, from: try inherited?.open() ?? ParentSource(link: link, id: 0, objectName: job.inputName))
                inherited?.report(to: link)
                try link.post(.reading, payload: Array(try JSONEncoder().encode(answer)))
            } catch {
                return 1
            }
            return 0
        }
        do {
            let outcome = try render(job, settings: settings, input: inherited, link: link)
            inherited?.report(to: link)
            try link.post(.outcome, payload: Array(try JSONEncoder().encode(outcome)))
            return 0
        } catch {
            inherited?.report(to: link)
            guard let input else {
                link.fail(
                    ChildFailure(
                        code: FailureCode.renderFailed.rawValue, message: "\(job.inputName): \(error)",
                        isPermanent: true))
                return 0
            }
            let failure = RenderJobRunner.failure(error, input: input, jobID: job.jobID, adjustmentID: job.adjustmentID)
            link.fail(
                ChildFailure(code: failure.code.rawValue, message: failure.message, isPermanent: failure.isPermanent))
            return 0
        }
    }

    /// An import's reading of `input`: the answer, or the refusal it met.
    static func read(_ reading: SandboxReading, from input: any ByteSource) -> ReadingAnswer {
        var answer = ReadingAnswer()
        switch reading {
        case .photoFacts:
            do {
                answer.facts = try PhotoFacts.read(from: input, name: input.objectName)
            } catch {
                answer.refusal = ReadingAnswer.Refusal(code: error.code.rawValue, message: error.message)
            }
        case .appleSidecar:
            do {
                answer.sidecar = try AppleSidecar.decodeForImport(try input.readAll(upTo: AppleSidecar.maxBytes + 1))
            } catch let error as AdjustmentError {
                answer.refusal = ReadingAnswer.Refusal(code: error.code.rawValue, message: error.message)
            } catch {
                answer.refusal = ReadingAnswer.Refusal(
                    code: AdjustmentError.Code.malformedData.rawValue, message: "cannot be read: \(error)")
            }
        }
        return answer
    }

    static func render(_ job: SandboxJob, settings: RenderSettings, input inherited: InheritedInput?, link: ParentLink)
        throws -> LayerOutcome
    {
        var settings = settings
        settings.memoryAdmission = ParentAdmission(link: link)
        let renderer = LayerRenderer(
            settings: settings, filters: .delegated { operations in try link.attachTables(operations) })
        let uploadCount =
            (job.adjustment == nil && job.thumbnail == nil ? 0 : 1)
            + (job.withRenditions ? settings.renditions.count : 0)
        let uploads = (0..<uploadCount).map { index -> any ObjectUpload in
            let name = index < job.uploadNames.count ? job.uploadNames[index] : "upload \(index)"
            guard let given = job.inheritedUploads.firstIndex(of: index), given < Sandbox.maxOutputs else {
                return ParentUpload(link: link, id: UInt32(index), objectName: name)
            }
            return InheritedUpload(
                link: link, id: UInt32(index), objectName: name,
                descriptor: Sandbox.firstOutputDescriptor + Int32(given))
        }
        let renditionUploads = job.writesOutput ? Array(uploads.dropFirst()) : uploads
        var streams = LayerRenderer.Streams(
            input: try inherited?.open() ?? ParentSource(link: link, id: 0, objectName: job.inputName),
            reopen: { try inherited?.open() ?? link.reopen(objectName: job.inputName) },
            output: job.writesOutput ? uploads.first : nil,
            renditions: renditionUploads.map { ($0, "") }, scratchDirectory: job.scratchDirectory)
        // Each stream is priced at the channel's buffer when any crosses it; files it was given
        // it reads and writes as the worker would.
        let crossesChannel = inherited == nil || uploads.contains { $0 is ParentUpload }
        streams.bufferedBytesPerStream =
            job.bufferedBytesPerStream + (crossesChannel ? SandboxMessage.streamBufferBytes : 0)
        if let thumbnail = job.thumbnail, let output = uploads.first {
            var request = RenderRequest(
                operations: [], encoding: OutputEncoding(quality: thumbnail.quality),
                limits: RenderLimits(memoryBudget: thumbnail.memoryBudget), spillDirectory: job.scratchDirectory,
                keepICCProfile: true, threads: 1)
            request.streamBufferBytes = streams.bufferedBytesPerStream
            var opened = false
            let result = try Renderer.thumbnail(
                request, longestSide: thumbnail.longestSide, orientation: Orientation(exifValue: thumbnail.orientation),
                open: {
                    defer { opened = true }
                    return opened ? try streams.reopen() : streams.input
                }, to: output)
            return LayerOutcome(result)
        }
        guard let adjustment = job.adjustment else {
            return LayerOutcome(try renderer.renderRenditions(streams: streams).result)
        }
        let start: Picture.Start =
            job.startOrientation.map { .original(recorded: $0 == 0 ? nil : Orientation(exifValue: $0)) } ?? .render
        let layer = LayerRenderer.Layer(
            EncodedAdjustment(
                formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion,
                data: Array(adjustment.data)),
            start: start, isReplay: job.isReplay)
        guard !job.explainOnly else {
            let explained = try renderer.explanation(
                layer, input: streams.input, reopen: streams.reopen, withRenditions: job.withRenditions,
                scratchDirectory: job.scratchDirectory)
            var outcome = LayerOutcome(planned: explained.edit)
            outcome.explanation = explained.text
            return outcome
        }
        guard !job.planOnly else {
            let header: SourceHeader
            do {
                header = try SourceHeader.read(from: streams.input)
            } catch let error as CodecError {
                throw RenderError.codec(error)
            }
            return LayerOutcome(planned: try renderer.plan(layer, header: header))
        }
        return LayerOutcome(try renderer.render(layer, streams: streams))
    }
}

/// The child's end of the channel, shared by its threads: a request and its answer, or a post,
/// one at a time.
final class ParentLink: Sendable {
    let channel: SandboxChannel
    private let lock = Mutex(())

    init(_ channel: SandboxChannel) { self.channel = channel }

    func post(_ message: SandboxMessage, id: UInt32 = 0, payload: [UInt8] = []) throws {
        try lock.withLock { _ in try channel.send(SandboxFrame(kind: message.rawValue, id: id, payload: payload)) }
    }

    func post(_ message: SandboxMessage, id: UInt32, bytes: UnsafeRawBufferPointer) throws {
        try lock.withLock { _ in try channel.send(kind: message.rawValue, id: id, payload: bytes) }
    }

    /// Sends a request and waits for its answer, which must be `expected`.
    func ask(_ message: SandboxMessage, id: UInt32 = 0, payload: [UInt8] = [], expecting expected: SandboxMessage)
        throws -> SandboxFrame
    {
        try lock.withLock { _ in
            try channel.send(SandboxFrame(kind: message.rawValue, id: id, payload: payload))
            guard let answer = try channel.receive(), answer.kind == expected.rawValue else {
                throw SandboxError(.protocolViolation, "the worker did not answer \(message) with \(expected)")
            }
            return answer
        }
    }

    /// Says why the render failed; the worker ends the child after this.
    func fail(_ failure: ChildFailure) {
        guard let json = try? JSONEncoder().encode(failure) else { return }
        try? post(.failed, payload: Array(json))
    }

    /// Asks the worker to publish upload `id`, saying how many bytes the child wrote to it when
    /// it writes the file itself (`writtenHere`); the byte count the worker answers, which must
    /// be that many.
    func commit(_ id: UInt32, writtenHere: Int?, objectName: String) throws(StreamError) -> Int {
        do {
            let said = writtenHere.map { UInt64($0) }
            let answer = try ask(.commit, id: id, payload: said?.littleEndianBytes ?? [], expecting: .committed)
            guard let count = UInt64(littleEndianBytes: answer.payload), said == nil || said == count else {
                throw SandboxError(.protocolViolation, "a commit's answer without its byte count, or with another")
            }
            return Int(count)
        } catch {
            throw StreamError(code: .io, object: objectName, message: "the worker did not commit it: \(error)")
        }
    }

    func reopen(objectName: String) throws -> any ByteSource {
        let answer = try ask(.reopen, expecting: .opened)
        return ParentSource(link: self, id: answer.id, objectName: objectName)
    }

    /// `operations` with each filter's table, which the worker reads, checks and parses.
    func attachTables(_ operations: [ImageOperation]) throws -> [ImageOperation] {
        var attached = operations
        for (index, operation) in operations.enumerated() {
            guard case .filter(var step) = operation else { continue }
            let query = FilterQuery(index: index, name: step.name, version: step.version, sha256: step.sha256)
            let answer = try ask(.filter, payload: Array(try JSONEncoder().encode(query)), expecting: .table)
            step.table = try FilterTableMessage.decode(answer.payload)
            attached[index] = .filter(step)
        }
        return attached
    }
}

/// A stream the worker reads for the child, `SandboxMessage.streamBufferBytes` at a time.
final class ParentSource: ByteSource {
    let link: ParentLink
    let id: UInt32
    let objectName: String
    private var buffered: [UInt8] = []
    private var offset = 0

    init(link: ParentLink, id: UInt32, objectName: String) {
        (self.link, self.id, self.objectName) = (link, id, objectName)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        if offset == buffered.count {
            let wanted = UInt32(SandboxMessage.streamBufferBytes)
            do {
                buffered = try link.ask(
                    .read, id: id, payload: withUnsafeBytes(of: wanted.littleEndian) { Array($0) }, expecting: .data
                ).payload
            } catch {
                throw StreamError(code: .io, object: objectName, message: "the worker did not send it: \(error)")
            }
            offset = 0
            guard buffered.count <= Int(wanted) else {
                throw StreamError(code: .io, object: objectName, message: "the worker sent more than was asked")
            }
            if buffered.isEmpty { return 0 }
        }
        let count = min(buffer.count, buffered.count - offset)
        buffered.withUnsafeBytes {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)]))
        }
        offset += count
        return count
    }
}

/// The input the worker gave the child to read itself (`Sandbox.inputDescriptor`, read-only):
/// each stream reads it from its start through a copy of the descriptor, and what they all read
/// is counted as the worker counts its own reads, and reported once, before the child's last
/// word, for the worker's metrics.
final class InheritedInput {
    let objectName: String
    private let reads = CountingSource.Tally()
    private var streams = 0
    private var reported = false

    init(objectName: String) { self.objectName = objectName }

    /// A stream from the file's start; the worker allows `SandboxMessage.maxInputStreams`.
    func open() throws(StreamError) -> any ByteSource {
        streams += 1
        guard streams <= SandboxMessage.maxInputStreams else {
            throw StreamError(code: .io, object: objectName, message: "the input was opened again and again")
        }
        return CountingSource(
            try FileSource.reading(copyOf: Sandbox.inputDescriptor, name: objectName), tally: reads)
    }

    func report(to link: ParentLink) {
        guard !reported else { return }
        reported = true
        try? link.post(.inputRead, payload: UInt64(reads.bytes).littleEndianBytes)
    }
}

/// An upload the worker publishes for the child: bytes go `SandboxMessage.streamBufferBytes` at
/// a time, and the worker commits.
final class ParentUpload: ObjectUpload {
    let link: ParentLink
    let id: UInt32
    let objectName: String
    private var pending: [UInt8] = []

    init(link: ParentLink, id: UInt32, objectName: String) {
        (self.link, self.id, self.objectName) = (link, id, objectName)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        pending.append(contentsOf: bytes)
        if pending.count >= SandboxMessage.streamBufferBytes { try flush() }
    }

    private func flush() throws(StreamError) {
        do {
            var offset = 0
            while offset < pending.count {
                let end = min(pending.count, offset + SandboxMessage.chunkBytes)
                try pending.withUnsafeBytes {
                    try link.post(.write, id: id, bytes: UnsafeRawBufferPointer(rebasing: $0[offset..<end]))
                }
                offset = end
            }
            pending.removeAll(keepingCapacity: true)
        } catch {
            throw StreamError(code: .io, object: objectName, message: "the worker did not take it: \(error)")
        }
    }

    func commit() throws(StreamError) -> Int {
        try flush()
        return try link.commit(id, writtenHere: nil, objectName: objectName)
    }

    func abort() {
        pending = []
        try? link.post(.abort, id: id)
    }
}

/// An upload whose file the worker gave the child to write itself: bytes go straight to it, as
/// they would in the worker, and the commit says how many there are. The worker publishes the
/// file once the child has ended, if it holds exactly that many.
final class InheritedUpload: ObjectUpload {
    let link: ParentLink
    let id: UInt32
    let objectName: String
    private let descriptor: Int32
    private var written = 0

    init(link: ParentLink, id: UInt32, objectName: String, descriptor: Int32) {
        (self.link, self.id, self.objectName, self.descriptor) = (link, id, objectName, descriptor)
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(StreamError) {
        try FileUpload.write(bytes, to: descriptor, object: objectName, at: written)
        written += bytes.count
    }

    func commit() throws(StreamError) -> Int {
        try link.commit(id, writtenHere: written, objectName: objectName)
    }

    func abort() { try? link.post(.abort, id: id) }
}

/// The worker's budget, asked over the channel. The worker holds the reservation until the
/// child has exited, so the child's memory is counted for as long as it exists.
struct ParentAdmission: MemoryAdmission {
    let link: ParentLink

    func reserve(_ bytes: Int, isCancelled: @escaping @Sendable () -> Bool) throws(RenderError) -> MemoryReservation {
        do {
            _ = try link.ask(.reserve, payload: UInt64(bytes).littleEndianBytes, expecting: .granted)
        } catch {
            throw RenderError.cancelled
        }
        return MemoryReservation(id: 0, bytes: bytes)
    }

    func release(_ reservation: MemoryReservation) {}
}
