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

    static func run(_ arguments: String..., environment: [String] = [], input: Int32? = nil) throws -> Report {
        let process = try SandboxedProcess(
            executable: probe, arguments: arguments, environment: environment, input: input, maxPayload: 1 << 16)
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
