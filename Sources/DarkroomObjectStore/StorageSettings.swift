import DarkroomStorage
import Foundation
import S3Answers

/// How a command finds its storage: `DARKROOM_STORAGE` (or `--storage`) is a local storage
/// root, or `s3://bucket/prefix` with the AWS variables (or the flags of those that are not
/// secret). Flags win over the environment. The one place a backend is chosen; the CLI only parses.
public struct StorageSettings: Sendable, Equatable {
    public var storage: String?
    public var endpointURL: String?
    public var region: String?
    public var accessKeyID: String?
    public var secretAccessKey: String?
    public var sessionToken: String?
    /// "path" or "virtual".
    public var addressing: String?
    /// Local folder for scratch files of an object-store worker (spills); nil: $TMPDIR or /tmp.
    public var scratch: String?

    public init(
        storage: String? = nil, endpointURL: String? = nil, region: String? = nil, accessKeyID: String? = nil,
        secretAccessKey: String? = nil, sessionToken: String? = nil, addressing: String? = nil, scratch: String? = nil
    ) {
        self.storage = storage
        self.endpointURL = endpointURL
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.addressing = addressing
        self.scratch = scratch
    }

    /// These settings with every one not given taken from `environment`; the secrets (which have
    /// no flag) from `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, or the files their `_FILE`
    /// variables name.
    public func filled(from environment: [String: String]) throws(StorageError) -> StorageSettings {
        func pick(_ flag: String?, _ name: String) -> String? {
            flag ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        func secret(_ given: String?, _ name: String) throws(StorageError) -> String? {
            if let given { return given }
            do throws(SecretFileError) {
                return try SecretVariable.value(name, in: environment)
            } catch {
                throw StorageError(code: .notConfigured, message: error.description, object: error.object)
            }
        }
        return StorageSettings(
            storage: pick(storage, "DARKROOM_STORAGE"), endpointURL: pick(endpointURL, "AWS_ENDPOINT_URL"),
            region: pick(region, "AWS_REGION") ?? environment["AWS_DEFAULT_REGION"].flatMap { $0.isEmpty ? nil : $0 },
            accessKeyID: pick(accessKeyID, "AWS_ACCESS_KEY_ID"),
            secretAccessKey: try secret(secretAccessKey, "AWS_SECRET_ACCESS_KEY"),
            sessionToken: try secret(sessionToken, "AWS_SESSION_TOKEN"),
            addressing: pick(addressing, "DARKROOM_S3_ADDRESSING"),
            scratch: pick(scratch, "DARKROOM_SCRATCH") ?? pick(nil, "TMPDIR") ?? "/tmp")
    }

    public var isObjectStorage: Bool { storage.map(S3Location.names) ?? false }

    /// The object store's configuration, checked (nil for a local root).
    public func s3Configuration() throws(StorageError) -> S3Configuration? {
        guard isObjectStorage, let storage else { return nil }
        var mode: S3Configuration.Addressing?
        if let addressing {
            guard let parsed = S3Configuration.Addressing(rawValue: addressing) else {
                throw StorageError(
                    code: .notConfigured,
                    message: "DARKROOM_S3_ADDRESSING (--s3-addressing) is \"\(addressing)\"; use path or virtual",
                    object: storage)
            }
            mode = parsed
        }
        return try S3Configuration(
            url: storage, endpoint: endpointURL, region: region, accessKeyID: accessKeyID,
            secretAccessKey: secretAccessKey, sessionToken: sessionToken, addressing: mode)
    }

    /// Opens the storage and checks it can be used: a local root is created when `create` is
    /// set and must exist otherwise; a bucket must exist and accept the credentials.
    public func open(create: Bool = false) throws(StorageError) -> any ObjectStorage {
        guard let storage, !storage.isEmpty else {
            throw StorageError(
                code: .notConfigured, message: "no storage configured: set DARKROOM_STORAGE or pass --storage",
                object: ""
            )
        }
        guard let configuration = try s3Configuration() else {
            let root = create ? try StorageRoot.create(storage) : try StorageRoot(storage)
            try root.prepare()
            return root
        }
        let scratch = self.scratch ?? "/tmp"
        do {
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        } catch {
            throw StorageError(
                code: .unavailable,
                message: "cannot create the scratch folder (DARKROOM_SCRATCH): \(error.localizedDescription)",
                object: scratch)
        }
        let bucket = S3Storage(configuration, scratchDirectory: scratch)
        do {
            try bucket.checkAccess()
        } catch {
            throw StorageError(code: .unavailable, message: error.description, object: configuration.location)
        }
        return bucket
    }
}
