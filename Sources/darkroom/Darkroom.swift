import ArgumentParser
import DarkroomDatabase
import DarkroomMetrics
import DarkroomObjectStore
import DarkroomWorker
import Foundation
import Logging
import Metrics
import PrintableText

struct Darkroom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-renders photo edits from a PostgreSQL queue.",
        discussion: """
            Configure with DATABASE_URL (a libpq URI or conninfo string) and DARKROOM_STORAGE \
            (the storage root every stored path is relative to, or s3://BUCKET/PREFIX with the AWS_* \
            variables), or the matching flags.
            Exit codes: 0 success, 1 usage or input error, 2 cannot work at all (database or \
            storage unavailable), 3 some jobs failed (worker --drain).
            """,
        version: DarkroomRelease.version,
        subcommands: [
            Migrate.self, Import.self, Enqueue.self, Revert.self, Rerender.self, History.self, Worker.self, Render.self,
            Status.self, Cancel.self, Retry.self, OperatorScriptCommand.self, Serve.self, QueueBench.self, Filter.self,
            Rendition.self,
        ])
}

/// Options every database command takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help:
            "libpq URI or conninfo, without a password (default: $DATABASE_URL, else the file $DATABASE_URL_FILE names)."
    )
    var databaseURL: String?

    @Option(name: .customLong("storage"), help: "Storage root, or s3://BUCKET/PREFIX (default: $DARKROOM_STORAGE).")
    var storage: String?

    @Option(
        name: .customLong("aws-endpoint-url"),
        help: "S3 endpoint, http(s)://HOST[:PORT] (default: $AWS_ENDPOINT_URL, else AWS).")
    var awsEndpointURL: String?

    @Option(name: .customLong("aws-region"), help: "S3 region (default: $AWS_REGION, else us-east-1).")
    var awsRegion: String?

    @Option(
        name: .customLong("aws-access-key-id"),
        help: ArgumentHelp(
            "S3 access key (default: $AWS_ACCESS_KEY_ID).",
            discussion:
                "The secret key and session token have no flag: $AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN, or the files $AWS_SECRET_ACCESS_KEY_FILE and $AWS_SESSION_TOKEN_FILE name."
        ))
    var awsAccessKeyID: String?

    @Option(
        name: .customLong("s3-addressing"),
        help: "path or virtual (default: $DARKROOM_S3_ADDRESSING, else path with an endpoint).")
    var s3Addressing: String?

    @Option(
        name: .customLong("scratch"),
        help: "Local folder for spill files with an object storage (default: $DARKROOM_SCRATCH, $TMPDIR or /tmp).")
    var scratch: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func resolvedDatabaseURL() throws -> String {
        guard
            let url = try Self.databaseURL(
                flag: databaseURL, flagName: "--database-url", variable: "DATABASE_URL")
        else {
            throw CommandFailure.cannotWork("no database configured: set DATABASE_URL or pass --database-url")
        }
        return url
    }

    /// A database URL from its flag (never one with a password: `ps` shows it to every local
    /// user), else `variable`, else the file `variable_FILE` names.
    static func databaseURL(flag: String?, flagName: String, variable: String) throws -> String? {
        if let flag, !flag.isEmpty {
            guard !DatabaseURL.carriesPassword(flag) else {
                throw CommandFailure.invalidInput(
                    "\(flagName) carries a password, which every user of this machine can read in `ps`; "
                        + "set \(variable) instead, or \(variable)_FILE naming a file that holds the URL, "
                        + "or keep the password in PGPASSFILE (~/.pgpass)")
            }
            return flag
        }
        do {
            return try SecretVariable.value(variable, in: ProcessInfo.processInfo.environment)
        } catch {
            throw CommandFailure.cannotWork(error.description)
        }
    }

    /// The storage flags as given; the library fills the rest from the environment.
    var storageSettings: StorageSettings {
        StorageSettings(
            storage: storage, endpointURL: awsEndpointURL, region: awsRegion, accessKeyID: awsAccessKeyID,
            addressing: s3Addressing, scratch: scratch)
    }

    func makeLogger(label: String = "darkroom") -> Logger {
        LoggingSetup.bootstrapOnce()
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

enum LoggingSetup {
    /// Logs go to stderr so stdout stays for results people and scripts read.
    /// Every value escaped first (`EscapingLogHandler`): one event is one line.
    static let bootstrap: Void = LoggingSystem.bootstrap { label in
        EscapingLogHandler(wrapped: StreamLogHandler.standardError(label: label))
    }
    static func bootstrapOnce() { _ = bootstrap }
}

enum MetricsSetup {
    /// Everything the libraries record through swift-metrics lands in this process's
    /// Prometheus registry, which `/metrics` emits.
    static let bootstrap: Void = MetricsSystem.bootstrap(ProcessMetrics.factory)
    static func bootstrapOnce() { _ = bootstrap }
}

/// Failures that end a command with a specific exit code and a one-line reason.
enum CommandFailure: Error, CustomStringConvertible {
    /// Exit 2: the database or storage is not there.
    case cannotWork(String)
    /// Exit 1: bad input.
    case invalidInput(String)
    /// Exit with the given code, reason already printed.
    case exit(Int32)

    var description: String {
        switch self {
        case .cannotWork(let message), .invalidInput(let message): message
        case .exit(let code): "exit \(code)"
        }
    }
}

extension ParsableCommand {
    /// Runs `body`, turning failures into a message on stderr and the documented exit code.
    func withExitCodes(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CommandFailure {
            switch failure {
            case .cannotWork(let message):
                FileHandle.standardError.write(Data("darkroom: \(Printable.field(message))\n".utf8))
                throw ExitCode(2)
            case .invalidInput(let message):
                FileHandle.standardError.write(Data("darkroom: \(Printable.field(message))\n".utf8))
                throw ExitCode(1)
            case .exit(let code):
                throw ExitCode(code)
            }
        }
    }
}
