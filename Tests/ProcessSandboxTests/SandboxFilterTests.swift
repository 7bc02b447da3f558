import DarkroomTestSupport
import Foundation
import ProcessSandbox
import Testing

/// The decoders' sandbox as the kernel keeps it: a probe confines itself exactly as a decoding
/// child does (`dr_sandbox_enter`), started exactly as a worker starts one (`SandboxedProcess`),
/// then tries one thing. What decoding needs works; what an attacker needs stops the process,
/// and the parent learns which call it was.
@Suite struct SandboxFilterTests {
    static var probe: String {
        DarkroomCommand.executable.deletingLastPathComponent().appendingPathComponent("SandboxProbe").path
    }

    struct Report {
        var termination: SandboxedProcess.Termination
        var deniedCall: Int?
        var said: String
    }

    /// Runs the probe; `go` sends it a frame once it has started, for an action that waits for one.
    static func run(
        _ arguments: String..., environment: [String] = [], input: Int32? = nil, outputs: [Int32] = [],
        maxFileBytes: Int = Sandbox.defaultMaxFileBytes, go: Bool = false
    ) throws -> Report {
        let process = try SandboxedProcess(
            executable: probe, arguments: arguments, environment: environment, input: input, outputs: outputs,
            maxFileBytes: maxFileBytes, maxPayload: 1 << 16)
        if go { try process.channel.send(SandboxFrame(kind: 0)) }
        let ended = process.wait()
        return Report(
            termination: ended, deniedCall: process.deniedSystemCall,
            said: String(decoding: process.errorOutput, as: UTF8.self))
    }

    @Test func theChildInheritsNothingButItsChannel() throws {
        let report = try Self.run("inheritance", environment: ["ONLY=this"])
        // Descriptors 0 (the channel), 1 (/dev/null) and 2 (the error pipe); one variable.
        #expect(report.said == "variables 1 descriptors 3\n", "\(report.said)")
        #expect(report.termination == .exited(0))
    }

    /// A child given its input (a render of a local file) holds one descriptor more, where it
    /// reads the file; it can neither write it nor lease or lock it.
    @Test func aChildGivenItsInputCanReadItAndNothingMore() throws {
        let path = NSTemporaryDirectory() + "darkroom-probe-input-" + UUID().uuidString
        try Data("an original".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = open(path, O_RDONLY | O_CLOEXEC)
        try #require(input >= 0)
        defer { close(input) }
        let held = try Self.run("inheritance", input: input)
        #expect(held.said == "variables 0 descriptors 4\n", "\(held.said)")
        let used = try Self.run("input", input: input)
        #expect(used.said == "read 11, refused errno \(EBADF)\n", "\(used.said)")
        #expect(used.termination == .exited(0))
        // Neither a lease nor a lock (either would hold up whoever opens it next); its flags, yes.
        let locked = try Self.run("lease", input: input)
        #expect(locked.said == "lease -1 errno \(EPERM), refused errno \(EPERM)\n", "\(locked.said)")
        let flags = try Self.run("flags", input: input)
        #expect(flags.said == "allowed\n", "\(flags.said)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("an original".utf8))
    }

    /// Files to write (a render's outputs, which its worker publishes) come after the input's
    /// place, whether or not there is an input, and nothing else comes with them.
    @Test func aChildGivenFilesToWriteHoldsThemAndNothingElse() throws {
        let folder = NSTemporaryDirectory() + "darkroom-probe-outputs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let paths = (0..<3).map { "\(folder)/\($0)" }
        let outputs = paths.map { open($0, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600) }
        defer { for output in outputs { close(output) } }
        try #require(outputs.allSatisfy { $0 >= 0 })
        // 0, 1 and 2, then the outputs from 4: 3, where an input goes, stays closed.
        let held = try Self.run("inheritance", outputs: outputs)
        #expect(held.said == "variables 0 descriptors 6\n", "\(held.said)")
        let written = try Self.run("outputs", outputs: outputs)
        #expect(written.said == "wrote 3, allowed\n", "\(written.said)")
        for (index, path) in paths.enumerated() {
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "output \(index)\n")
        }
        // With an input, which keeps its place.
        let input = open(paths[0], O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        let both = try Self.run("inheritance", input: input, outputs: Array(outputs.prefix(2)))
        #expect(both.said == "variables 0 descriptors 6\n", "\(both.said)")
        #expect(throws: SandboxError.self) {
            _ = try SandboxedProcess(
                executable: Self.probe, arguments: ["inheritance"],
                outputs: Array(repeating: outputs[0], count: Sandbox.maxOutputs + 1), maxPayload: 1 << 16)
        }
    }

    /// No file a child writes, given or scratch, grows past its bound: the write that would
    /// stops the child (SIGXFSZ), and what it wrote before stays within the bound.
    @Test func aChildThatWritesPastItsBoundIsStopped() throws {
        let path = NSTemporaryDirectory() + "darkroom-probe-grow-" + UUID().uuidString
        let output = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(output >= 0)
        defer {
            close(output)
            unlink(path)
        }
        let given = try Self.run("grow", outputs: [output], maxFileBytes: 1 << 20, go: true)
        #expect(given.termination == .signalled(SIGXFSZ), "\(given.termination) \(given.said)")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 1 << 20)
        let scratch = try Self.run("grow", NSTemporaryDirectory(), maxFileBytes: 1 << 20, go: true)
        #expect(scratch.termination == .signalled(SIGXFSZ), "\(scratch.termination) \(scratch.said)")
        // Within the bound, the same writes go through.
        let within = try Self.run("grow", NSTemporaryDirectory(), maxFileBytes: 8 << 20, go: true)
        #expect(within.said == "allowed\n" && within.termination == .exited(0), "\(within.said)")
    }

    @Test func whatDecodingNeedsIsAllowed() throws {
        let thread = try Self.run("thread")
        #expect(thread.said == "allowed\n" && thread.termination == .exited(0), "\(thread.said)")
        let scratch = try Self.run("scratch", NSTemporaryDirectory())
        #expect(scratch.said == "allowed\n" && scratch.termination == .exited(0), "\(scratch.said)")
    }

    /// Opening a file fails as a missing permission would (a library that probes a file goes on),
    /// reading and creating alike.
    @Test func noFileCanBeOpenedOrMade() throws {
        let passwd = try Self.run("open", "/etc/passwd")
        #expect(passwd.said == "refused errno \(EACCES)\n", "\(passwd.said)")
        let target = NSTemporaryDirectory() + "darkroom-probe-" + UUID().uuidString
        let created = try Self.run("create", target)
        #expect(created.said == "refused errno \(EACCES)\n", "\(created.said)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// A network, another program, a second process, a signal or a debugger: the process ends
    /// at the call, and says which it was.
    @Test(arguments: [
        (["socket"], Call.socket), (["exec", "/bin/true"], Call.execve), (["fork"], Call.clone),
        (["kill"], Call.kill), (["ptrace"], Call.ptrace),
    ])
    func whatAnAttackerNeedsEndsTheProcess(arguments: [String], call: Int) throws {
        let process = try SandboxedProcess(executable: Self.probe, arguments: arguments, maxPayload: 1 << 16)
        let ended = process.wait()
        #expect(ended == .exited(Sandbox.deniedStatus), "\(ended)")
        #expect(process.deniedSystemCall == call)
    }

    /// System call numbers (`<asm/unistd.h>`, which Swift does not import).
    enum Call {
        #if arch(x86_64)
            static let socket = 41, execve = 59, clone = 56, kill = 62, ptrace = 101
        #else
            static let socket = 198, execve = 221, clone = 220, kill = 129, ptrace = 117
        #endif
    }

    @Test func aChildThatCannotStartSaysSo() throws {
        #expect(throws: SandboxError.self) {
            _ = try SandboxedProcess(executable: "/nonexistent/darkroom", arguments: [], maxPayload: 1)
        }
    }
}
