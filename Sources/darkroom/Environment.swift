import DarkroomDatabase
import DarkroomObjectStore
import DarkroomStorage
import DarkroomWorker
import Foundation

/// Opening what a command needs, with exit code 2 when it is not there.
enum Environment {
    static func connect(_ options: GlobalOptions) throws -> DatabaseConnection {
        let url = try options.resolvedDatabaseURL()
        do {
            return try DatabaseConnection(url)
        } catch let error as DatabaseError {
            throw CommandFailure.cannotWork("cannot connect to PostgreSQL: \(error.message)")
        }
    }

    /// The storage every command reads and publishes through: the one place a backend is chosen.
    static func storage(_ options: GlobalOptions, create: Bool = false) throws -> any ObjectStorage {
        do throws(StorageError) {
            return try options.storageSettings.filled(from: ProcessInfo.processInfo.environment).open(
                create: create)
        } catch {
            throw CommandFailure.cannotWork(error.description)
        }
    }

    /// Refuses to run against a database whose schema is missing.
    static func requireSchema(_ connection: DatabaseConnection) throws {
        guard try Migrator.schemaExists(on: connection) else {
            throw CommandFailure.cannotWork("the darkroom schema is missing; run `darkroom migrate` first")
        }
    }
}
