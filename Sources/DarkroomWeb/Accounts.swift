import Foundation
import HummingbirdBcrypt

/// What a signed-in person may do; the same split as the database roles: a viewer reads the
/// views, an operator also calls the operator API (retry, cancel).
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    case viewer, `operator`

    public static func < (lhs: Role, rhs: Role) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One line of the account file: `name role bcrypt-hash`.
public struct Account: Sendable, Hashable {
    public var name: String
    public var role: Role
    /// bcrypt (salted, cost 12 by default): `$2b$12$…`.
    public var passwordHash: String

    /// Names are what the audit records: letters, digits and `._@-`, up to 64.
    public static func nameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.count <= 64 else { return "an account name has 1 to 64 characters" }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-")
        guard name.allSatisfy(allowed.contains) else {
            return "an account name may hold letters, digits and . _ @ - only, not \(name.debugDescription)"
        }
        return nil
    }
}

/// The problems an account file can have, each naming the file and line.
public struct AccountFileError: Error, Sendable, CustomStringConvertible {
    /// Stable, for programs and logs.
    public enum Code: String, Sendable {
        /// The file (or the audit file beside it) cannot be read, created or replaced.
        case unreadable = "account_file_unreadable"
        case unwritable = "account_file_unwritable"
        /// A line that is not `name role bcrypt-hash`.
        case malformed = "account_file_malformed"
        /// A name or password `--add-user` refuses.
        case invalidAccount = "account_invalid"
    }

    public var code: Code
    public var message: String
    /// The account file.
    public var object: String
    public var line: Int?

    public init(_ code: Code, _ message: String, object: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.object = object
        self.line = line
    }

    public var description: String { "\(object)\(line.map { ":\($0)" } ?? ""): \(message) [\(code.rawValue)]" }
}

/// The accounts `darkroom serve` signs people in with, read from a file once at start.
public struct AccountFile: Sendable {
    public var path: String
    public private(set) var accounts: [String: Account]

    /// bcrypt's cost: 2^12 rounds, about a quarter of a second per check on this machine.
    public static let cost: UInt8 = 12

    public init(path: String, accounts: [Account] = []) {
        self.path = path
        self.accounts = Dictionary(accounts.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
    }

    /// Reads `path`; blank lines and lines starting with `#` are skipped.
    public static func load(_ path: String) throws(AccountFileError) -> AccountFile {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw AccountFileError(
                .unreadable, "cannot read the account file: \(error.localizedDescription)", object: path)
        }
        var file = AccountFile(path: path)
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard fields.count == 3 else {
                throw AccountFileError(
                    .malformed, "expected `name role bcrypt-hash`, found \(fields.count) field(s)", object: path,
                    line: index + 1)
            }
            if let problem = Account.nameProblem(fields[0]) {
                throw AccountFileError(.malformed, problem, object: path, line: index + 1)
            }
            guard let role = Role(rawValue: fields[1]) else {
                throw AccountFileError(
                    .malformed, "role \(fields[1].debugDescription) is neither viewer nor operator", object: path,
                    line: index + 1)
            }
            guard fields[2].hasPrefix("$2") else {
                throw AccountFileError(
                    .malformed, "the password hash is not bcrypt; create entries with `darkroom serve --add-user`",
                    object: path, line: index + 1)
            }
            file.accounts[fields[0]] = Account(name: fields[0], role: role, passwordHash: fields[2])
        }
        return file
    }

    /// Adds or replaces `name` with a fresh salted hash of `password`.
    public mutating func set(name: String, role: Role, password: String) throws(AccountFileError) {
        if let problem = Account.nameProblem(name) { throw AccountFileError(.invalidAccount, problem, object: path) }
        guard password.utf8.count >= 8, password.utf8.count <= 72 else {
            throw AccountFileError(
                .invalidAccount, "a password has 8 to 72 bytes (bcrypt reads no further)", object: path)
        }
        accounts[name] = Account(name: name, role: role, passwordHash: Bcrypt.hash(password, cost: Self.cost))
    }

    /// Writes the file whole (temporary file, then rename), readable by its owner only.
    public func save() throws(AccountFileError) {
        var text = "# darkroom serve accounts: name role bcrypt-hash (edit with `darkroom serve --add-user`)\n"
        for account in accounts.values.sorted(by: { $0.name < $1.name }) {
            text += "\(account.name) \(account.role.rawValue) \(account.passwordHash)\n"
        }
        let temporary = path + ".tmp-\(getpid())"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw AccountFileError(.unwritable, "cannot write \(temporary)", object: path)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw AccountFileError(.unwritable, "cannot replace the account file: \(reason)", object: path)
        }
    }

    /// The account whose password this is, or nil. Unknown names cost a bcrypt check too, so
    /// the time taken does not tell which names exist. Slow on purpose: call it off the event loop.
    public func verify(name: String, password: String) -> Account? {
        guard let account = accounts[name] else {
            _ = Bcrypt.verify(password, hash: Self.decoyHash)
            return nil
        }
        return Bcrypt.verify(password, hash: account.passwordHash) ? account : nil
    }

    private static let decoyHash = Bcrypt.hash("not a password of anyone's", cost: cost)
}
