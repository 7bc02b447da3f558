import DarkroomDatabase
import DarkroomImaging

extension RecordedWarning {
    /// How a job records what its render met: the same code, message and context.
    init(_ warning: RenderWarning) {
        self.init(
            code: warning.code, message: warning.message, object: warning.object, byteOffset: warning.byteOffset,
            byteCount: warning.byteCount)
    }
}
