import ArgumentParser
import DarkroomDatabase
import DarkroomImaging
import DarkroomMetricsEndpoint
import DarkroomWeb
import Foundation
import Hummingbird
import Logging

extension Darkroom {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The operators' dashboard: queue, batches, failures, assets before and after, over HTTP.",
            discussion: """
                Pages read the same views as `darkroom status`; retry and cancel go through the operator API. \
                With --accounts (or $DARKROOM_ACCOUNTS) people sign in; without, it listens on loopback only and \
                everyone who reaches it acts as the operator `local`. Add or change an account with \
                `darkroom serve --accounts FILE --add-user NAME --role viewer|operator` (the password is read from \
                stdin). Behind TLS, pass --secure-cookies.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Slow and greedy clients") var serverLimits: ServerLimitOptions
        @Option(help: "Address to listen on, host:port.") var listen: String = "127.0.0.1:8080"
        @Option(help: "The account file (default: $DARKROOM_ACCOUNTS).") var accounts: String?
        @Option(name: .customLong("add-user"), help: "Add or replace this account in --accounts, then exit.")
        var addUser: String?
        @Option(help: "With --add-user: viewer or operator.") var role: String = "viewer"
        @Flag(name: .customLong("secure-cookies"), help: "Mark the session cookie Secure (serve behind TLS).")
        var secureCookies = false
        @Option(
            name: .customLong("audit-file"),
            help: "Also append every sign-in and action to this file, one JSON line each.")
        var auditFile: String?
        @Option(
            name: .customLong("allowed-host"),
            help: ArgumentHelp(
                "A host name the dashboard answers to, besides localhost and its listen address (repeatable; default: $DARKROOM_ALLOWED_HOSTS, comma-separated).",
                discussion:
                    "Requests for any other name get 421: a site that rebinds its name to this machine reaches nothing."
            ))
        var allowedHosts: [String] = []
        @Option(name: .customLong("pool-size"), help: "Database connections (one thread each).") var poolSize: Int = 4
        @Option(
            name: .customLong("decoder-sandbox"),
            help:
                "on: each thumbnail is decoded in a child process that holds no credential, can open no file and makes only the system calls decoding needs, forked from a zygote (docs/hostile-input.md); fresh: each child started afresh; off: in serve itself."
        )
        var decoderSandbox: SandboxSetting = .on
        @Option(
            name: .customLong("thumbnail-memory-budget"),
            help: "Memory one thumbnail render may use, e.g. 64MiB (one at a time).")
        var thumbnailBudget: String = "64MiB"

        func validate() throws {
            guard ListenAddress(listen) != nil else {
                throw ValidationError("--listen: write host:port, e.g. 127.0.0.1:8080")
            }
            guard Role(rawValue: role) != nil else { throw ValidationError("--role is viewer or operator") }
            guard (1...64).contains(poolSize) else { throw ValidationError("--pool-size must be 1…64") }
            guard ByteCount.parse(thumbnailBudget) != nil else {
                throw ValidationError("--thumbnail-memory-budget: write e.g. 64MiB")
            }
            if addUser != nil && accountsPath == nil {
                throw ValidationError("--add-user needs --accounts FILE (or $DARKROOM_ACCOUNTS)")
            }
        }

        var accountsPath: String? {
            accounts ?? ProcessInfo.processInfo.environment["DARKROOM_ACCOUNTS"].flatMap { $0.isEmpty ? nil : $0 }
        }

        func run() async throws {
            if let addUser {
                try withExitCodes { try add(addUser) }
                return
            }
            var prepared: (Dashboard, ListenAddress, Logger)?
            try withExitCodes { prepared = try prepare() }
            guard let (dashboard, address, logger) = prepared else { return }
            MetricsSetup.bootstrapOnce()
            // In PostgreSQL: a restart signs nobody out, and every replica knows every session.
            let sessions = DatabaseSessionStore(pool: dashboard.pool, logger: logger)
            let app = Application(
                router: dashboard.router(sessions: sessions), server: serverLimits.limits.server,
                configuration: serverLimits.limits.configuration(
                    address: address, serverName: "darkroom", logger: logger),
                services: [sessions],
                onServerRunning: { channel in
                    let port = channel.localAddress?.port ?? address.port
                    FileHandle.standardOutput.write(Data("dashboard at http://\(address.host):\(port)/\n".utf8))
                },
                logger: logger)
            try await app.runService()
        }

        private func prepare() throws -> (Dashboard, ListenAddress, Logger) {
            let logger = global.makeLogger(label: "darkroom.serve")
            let databaseURL = try global.resolvedDatabaseURL()
            let connection = try Environment.connect(global)
            try Environment.requireSchema(connection)
            // The key that signs sign-in forms, the same for every replica (made by the first).
            let signInForms = try SignInForms.load(from: connection)
            let accountFile: AccountFile?
            do { accountFile = try accountsPath.map(AccountFile.load) } catch {
                throw CommandFailure.cannotWork(error.description)
            }
            var address = ListenAddress(listen)!
            if accountFile == nil {
                if !address.isLoopback {
                    logger.warning(
                        "no account file: listening on 127.0.0.1 only, not \(address.host)",
                        metadata: ["hint": "pass --accounts FILE to let people sign in from elsewhere"])
                    address.host = "127.0.0.1"
                }
                logger.notice(
                    "no account file configured: listening on loopback only; everyone who reaches it acts as the operator '\(Dashboard.localAccount)'"
                )
            } else if accountFile!.accounts.isEmpty {
                throw CommandFailure.cannotWork(
                    "\(accountsPath!) has no accounts; add one with --add-user NAME --role operator")
            }
            let audit: ActionAudit
            do { audit = try ActionAudit(path: auditFile, logger: logger) } catch {
                throw CommandFailure.cannotWork("\(error)")
            }
            let thumbnails = Thumbnails(
                storage: try Environment.storage(global), memoryBudget: ByteCount.parse(thumbnailBudget)!,
                sandbox: try decoderSandbox.checked())
            let pool = DatabasePool(url: databaseURL, size: poolSize, logger: logger)
            let options = Dashboard.Options(
                accounts: accountFile, secureCookies: secureCookies, allowedHosts: hostNames(listeningOn: address))
            return (
                Dashboard(
                    pool: pool, thumbnails: thumbnails, audit: audit, signInForms: signInForms, options: options,
                    logger: logger),
                address, logger
            )
        }

        /// The flags' names, else the environment's, and the listen address unless it is a wildcard.
        private func hostNames(listeningOn address: ListenAddress) -> Set<String> {
            var names = Set(allowedHosts)
            if names.isEmpty, let listed = ProcessInfo.processInfo.environment["DARKROOM_ALLOWED_HOSTS"] {
                names.formUnion(listed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            if !["0.0.0.0", "::", ""].contains(address.host) { names.insert(address.host) }
            return names
        }

        private func add(_ name: String) throws {
            let path = accountsPath!
            if isatty(STDIN_FILENO) == 1 { FileHandle.standardError.write(Data("password for \(name): ".utf8)) }
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw CommandFailure.invalidInput("no password on stdin")
            }
            do {
                var file =
                    FileManager.default.fileExists(atPath: path) ? try AccountFile.load(path) : AccountFile(path: path)
                try file.set(name: name, role: Role(rawValue: role)!, password: password)
                try file.save()
            } catch {
                throw CommandFailure.invalidInput(error.description)
            }
            print("account \(name)\t\(role)\t\(path)")
        }
    }
}
