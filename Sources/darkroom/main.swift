import ArgumentParser
import DarkroomWorker
import Foundation

// A worker's decoding zygote, or a decoding child started afresh, starts here, single-threaded
// and before the command tree is parsed (which would cost a child more than its own work on a
// small photo).
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == DecoderSandbox.command {
    if CommandLine.arguments.count == 3, CommandLine.arguments[2] == DecoderSandbox.zygoteArgument {
        DecoderSandboxChild.serveAsZygote()
    }
    exit(DecoderSandboxChild.run())
}
// Every other command, as ArgumentParser's asynchronous entry runs it (from top-level code the
// compiler would pick its synchronous `main`, which refuses an asynchronous root).
func runCommand() async {
    do {
        var command = try Darkroom.parseAsRoot()
        if var asynchronous = command as? any AsyncParsableCommand {
            try await asynchronous.run()
        } else {
            try command.run()
        }
    } catch {
        Darkroom.exit(withError: error)
    }
}
await runCommand()
