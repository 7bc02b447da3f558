internal import LibPQ

/// What a command checks of a database URL before it uses one (libpq reads it: `ConnectionString`).
public enum DatabaseURL {
    /// Whether `url` carries a password (a URI's `user:password@`, `password=`), readable or not.
    public static func carriesPassword(_ url: String) -> Bool { ConnectionString.carriesPassword(url) }
}
