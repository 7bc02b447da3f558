import CSandbox

#if canImport(Glibc)
    import Glibc
#endif

/// A child process that holds nothing of its parent's: started from `executable` with a
/// scrubbed environment and three descriptors (the channel, /dev/null, a pipe for what it says
/// on stderr), then its input to read and the files it writes when it is given them, every
/// file it writes bounded (`maxFileBytes`), then confined by itself (`Sandbox.enter`) before
/// it reads a byte. The parent owns the process: it talks over `channel`, and the child is
/// killed and reaped when this goes.
public final class SandboxedProcess: @unchecked Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "was killed by \(SandboxedProcess.signalName(signal))"
            }
        }
    }

    public let pid: pid_t
    public private(set) var channel: SandboxChannel!
    private let errorPipe: Int32
    private var errorTail: [UInt8] = []
    private var termination: Termination?
    /// The child's peak resident set (`ru_maxrss`) once `wait` has reaped it. A fork from a
    /// zygote counts the pages it shares with the zygote too, and any child the code it ran:
    /// what a render held is its peak less a child's that rendered next to nothing.
    public private(set) var peakResidentBytes: Int?
    /// How much of the child's stderr is kept (the last bytes): enough for a runtime's message.
    public static let errorTailBytes = 4096
    /// How often a parent waiting on the channel drains stderr and asks whether to give up.
    public static let pollMilliseconds = 100

    /// How a child is started.
    public enum Start: Sendable {
        /// `executable` with `arguments` and `environment`, exec'd afresh (its own address layout).
        case spawn(executable: String, arguments: [String], environment: [String])
        /// Forked by a zygote, its libraries already loaded and started.
        case fork(SandboxZygote)
    }

    /// Starts the child. `input`, a descriptor the child may read, becomes its
    /// `Sandbox.inputDescriptor`; `outputs`, files it may write (at most `Sandbox.maxOutputs`),
    /// follow from `Sandbox.firstOutputDescriptor`. No file it writes, those or its scratch
    /// files, grows past `maxFileBytes`. `whileWaiting` runs whenever the channel has been quiet
    /// for `pollMilliseconds`; it may throw to stop waiting (a cancelled render).
    public convenience init(
        executable: String, arguments: [String], environment: [String] = [], input: Int32? = nil,
        outputs: [Int32] = [], maxFileBytes: Int = Sandbox.defaultMaxFileBytes, maxPayload: Int,
        whileWaiting: @escaping () throws -> Void = {}
    ) throws(SandboxError) {
        try self.init(
            .spawn(executable: executable, arguments: arguments, environment: environment), input: input,
            outputs: outputs, maxFileBytes: maxFileBytes, maxPayload: maxPayload, whileWaiting: whileWaiting)
    }

    public init(
        _ start: Start, input: Int32? = nil, outputs: [Int32] = [], maxFileBytes: Int = Sandbox.defaultMaxFileBytes,
        maxPayload: Int, whileWaiting: @escaping () throws -> Void = {}
    ) throws(SandboxError) {
        guard outputs.count <= Sandbox.maxOutputs else {
            throw SandboxError(
                .spawnFailed, "a child can be given \(Sandbox.maxOutputs) files to write, not \(outputs.count)")
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SandboxError(.spawnFailed, "cannot make the sandbox's channel", errno: errno)
        }
        var pipeEnds: [Int32] = [-1, -1]
        let piped = dr_sandbox_pipe(&pipeEnds)
        guard piped == 0 else {
            close(pair[0])
            close(pair[1])
            throw SandboxError(.spawnFailed, "cannot make the sandbox's error pipe", errno: piped)
        }
        defer {
            close(pair[1])
            close(pipeEnds[1])
        }
        do {
            switch start {
            case .spawn(let executable, let arguments, let environment):
                pid = try Self.spawn(
                    executable, arguments, environment, channel: pair[1], errors: pipeEnds[1], input: input,
                    outputs: outputs)
            case .fork(let zygote):
                pid = try zygote.fork(channel: pair[1], errors: pipeEnds[1], input: input, outputs: outputs)
            }
        } catch {
            close(pair[0])
            close(pipeEnds[0])
            throw error
        }
        // Before the child has its job, so before it can have been taken over.
        let limited = dr_sandbox_limit_file_size(pid, UInt64(maxFileBytes))
        guard limited == 0 else {
            Self.killAndReap(pid)
            close(pair[0])
            close(pipeEnds[0])
            throw SandboxError(.spawnFailed, "cannot bound the files the child writes (RLIMIT_FSIZE)", errno: limited)
        }
        errorPipe = pipeEnds[0]
        _ = fcntl(errorPipe, F_SETFL, fcntl(errorPipe, F_GETFL) | O_NONBLOCK)
        var timeout = timeval(tv_sec: 0, tv_usec: Self.pollMilliseconds * 1000)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            _ = setsockopt(pair[0], SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        channel = SandboxChannel(descriptor: pair[0], maxPayload: maxPayload) { [unowned self] in
            drainErrors()
            try whileWaiting()
        }
    }

    static func spawn(
        _ executable: String, _ arguments: [String], _ environment: [String], channel: Int32, errors: Int32,
        input: Int32?, outputs: [Int32]
    )
        throws(SandboxError) -> pid_t
    {
        var child: pid_t = 0
        let status = withCStrings([executable] + arguments) { argv in
            withCStrings(environment) { envp in
                outputs.withUnsafeBufferPointer {
                    dr_sandbox_spawn(
                        executable, argv, envp, channel, errors, input ?? -1, $0.baseAddress, Int32(outputs.count),
                        &child)
                }
            }
        }
        guard status == 0 else { throw SandboxError(.spawnFailed, "cannot start \(executable)", errno: status) }
        return child
    }

    deinit {
        if termination == nil {
            kill()
            _ = wait()
        }
        close(errorPipe)
    }

    /// Stops `pid`, a child of this process, at once and reaps it: one this object does not own
    /// (yet), or a zygote.
    static func killAndReap(_ pid: pid_t) {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Stops the child at once (SIGKILL); `wait` then reaps it.
    public func kill() {
        if termination == nil { _ = Glibc.kill(pid, SIGKILL) }
    }

    /// Reaps the child (waiting for it to end) and says how it ended.
    public func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        var usage = rusage()
        var reaped: pid_t
        repeat { reaped = wait4(pid, &status, 0, &usage) } while reaped < 0 && errno == EINTR
        drainErrors()
        if reaped == pid { peakResidentBytes = usage.ru_maxrss * 1024 }
        // Not ours to reap (a fork whose reparenting failed): all that is known is that it ended.
        let ended: Termination =
            reaped < 0
            ? .signalled(SIGKILL) : status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
        termination = ended
        return ended
    }

    /// The last `errorTailBytes` the child wrote to stderr, as it wrote them (escape before
    /// showing: the child may be hostile).
    public var errorOutput: [UInt8] {
        drainErrors()
        return errorTail
    }

    /// The system call the child's filter refused, when it ended for that
    /// (`DR_SANDBOX_DENIED_STATUS` after its report on stderr).
    public var deniedSystemCall: Int? {
        guard termination == .exited(DR_SANDBOX_DENIED_STATUS) else { return nil }
        let marker = Array("darkroom-sandbox: system call ".utf8)
        let tail = errorOutput
        guard let start = tail.indices.last(where: { tail[$0...].starts(with: marker) }) else { return nil }
        let digits = tail[(start + marker.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    private func drainErrors() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(errorPipe, $0.baseAddress!, $0.count) }
            guard got > 0 else { return }
            errorTail += chunk[..<got]
            if errorTail.count > Self.errorTailBytes { errorTail.removeFirst(errorTail.count - Self.errorTailBytes) }
        }
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        case SIGSYS: "SIGSYS"
        case SIGTRAP: "SIGTRAP"
        case SIGXFSZ: "SIGXFSZ"
        default: "signal \(signal)"
        }
    }

    static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let copies = strings.map { strdup($0) } + [nil]
        defer { for copy in copies { free(copy) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

/// The child's side: confinement, once and for good.
public enum Sandbox {
    /// The exit status of a child whose filter refused a system call.
    public static let deniedStatus = DR_SANDBOX_DENIED_STATUS
    /// Where a child given its input finds it (`SandboxedProcess`'s `input`).
    public static let inputDescriptor = Int32(DR_SANDBOX_INPUT_DESCRIPTOR)
    /// Where a child given files to write finds the first (`SandboxedProcess`'s `outputs`).
    public static let firstOutputDescriptor = Int32(DR_SANDBOX_FIRST_OUTPUT_DESCRIPTOR)
    /// The most files a child is given to write.
    public static let maxOutputs = Int(DR_SANDBOX_MAX_OUTPUTS)
    /// How large a file a child may write unless its parent says otherwise: for a child that
    /// writes no render's files (the sandbox's start-up check, a test's probe).
    public static let defaultMaxFileBytes = 1 << 30

    /// Serves as a zygote on descriptor 0 (`SandboxZygote`): forks a child per request, which
    /// runs `child` and exits with what it returns. Call it single-threaded, with every library
    /// the children need started. Never returns.
    public static func serveAsZygote(child: @convention(c) () -> Int32) -> Never {
        dr_sandbox_zygote(0, child)
        fatalError("dr_sandbox_zygote returned")
    }

    /// Confines this process (see `dr_sandbox_enter`): call it after every library that loads
    /// plugins or reads files at start has started, before the first untrusted byte is read.
    public static func enter() throws(SandboxError) {
        let status = dr_sandbox_enter()
        guard status == 0 else {
            throw SandboxError(.confinementFailed, "cannot confine the decoding process", errno: status)
        }
    }
}
