import DarkroomStorage

extension StorageRoot {
    /// The path a stored relative path names under the root, for tests that look at the files
    /// themselves. It opens and checks nothing (darkroom reaches every object through the
    /// root's descriptor), so it has no place in the library.
    public func resolve(_ relative: String) throws -> String {
        path + "/" + (try StorageKey(relative)).rawValue
    }

    public func resolve(_ key: StorageKey) -> String { path + "/" + key.rawValue }
}
