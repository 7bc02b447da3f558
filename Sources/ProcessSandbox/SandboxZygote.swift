import CSandbox
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A process that forks sandboxed children ready to work: started once from `executable` (as
/// `dr_sandbox_spawn` starts any child: a scrubbed environment, no descriptor of its parent's),
/// its libraries loaded and started, single-threaded, so a child costs a fork instead of an
/// exec, the dynamic linker and the codecs' start (about 40 ms of CPU, more than the rest of
/// the sandbox on a 24 MP JPEG). Its children are reparented to this process, which reaps them
/// as it would children it started (`dr_sandbox_become_subreaper`). Started on first use, and
/// again if it died; shared by every thread of the process, one request at a time.
public final class SandboxZygote: Sendable {
    public let executable: String
    public let arguments: [String]
    public let environment: [String]
    private let state = Mutex<Running?>(nil)

    /// The zygote process and the socket its requests go on.
    struct Running: ~Copyable {
        var pid: pid_t
        var control: Int32
    }

    public init(executable: String, arguments: [String], environment: [String]) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    deinit {
        state.withLock { running in
            guard let zygote = running.take() else { return }
            close(zygote.control)
            SandboxedProcess.killAndReap(zygote.pid)
        }
    }

    /// The zygote's pid while one runs (for tests that kill it).
    package var pid: pid_t? { state.withLock { $0?.pid } }

    /// A child with `channel` as its descriptor 0, `errors` as its 2, `input` (when there is
    /// one) as `Sandbox.inputDescriptor` and `outputs` from `Sandbox.firstOutputDescriptor`; its
    /// pid. A zygote found gone before it got the request is started again, once; one that got
    /// it and did not answer is not asked again with the same descriptors (a child may have
    /// them: two readers of one channel would each get half its frames), so the caller's render
    /// fails, to be retried.
    func fork(channel: Int32, errors: Int32, input: Int32?, outputs: [Int32]) throws(SandboxError) -> pid_t {
        try state.withLock { (running: inout Running?) throws(SandboxError) -> pid_t in
            for attempt in 0..<2 {
                if running == nil { running = try start() }
                let pid = outputs.withUnsafeBufferPointer {
                    dr_sandbox_zygote_fork(
                        running!.control, channel, errors, input ?? -1, $0.baseAddress, Int32(outputs.count))
                }
                if pid > 0 { return pid }
                let error = errno
                if let zygote = running.take() {
                    close(zygote.control)
                    SandboxedProcess.killAndReap(zygote.pid)
                }
                if error != EPIPE || attempt == 1 {
                    throw SandboxError(.spawnFailed, "the zygote could not fork a child", errno: error)
                }
            }
            preconditionFailure("unreachable")
        }
    }

    private func start() throws(SandboxError) -> Running {
        let subreaper = dr_sandbox_become_subreaper()
        guard subreaper == 0 else {
            throw SandboxError(
                .spawnFailed, "cannot reap the zygote's children (PR_SET_CHILD_SUBREAPER)", errno: subreaper)
        }
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw SandboxError(.spawnFailed, "cannot make the zygote's socket", errno: errno)
        }
        defer { close(pair[1]) }
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if devNull >= 0 { close(devNull) } }
        do {
            let pid = try SandboxedProcess.spawn(
                executable, arguments, environment, channel: pair[1], errors: devNull, input: nil, outputs: [])
            return Running(pid: pid, control: pair[0])
        } catch {
            close(pair[0])
            throw error
        }
    }
}
