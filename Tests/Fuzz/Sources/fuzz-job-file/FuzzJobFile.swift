import DarkroomOperatorScripts
import FuzzSupport

/// The input is a job file named fuzz.sql. Properties: a refusal is an `OperatorScriptError`;
/// a script whose parameters all have defaults binds without arguments, every placeholder
/// becomes a numbered parameter (one value per distinct name), and the bound SQL, put back
/// under a header, is a script without placeholders whose SQL is the bound SQL itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJobFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let script: OperatorScript
        do throws(OperatorScriptError) {
            script = try OperatorScript(parsing: String(decoding: bytes, as: UTF8.self), expectedName: "fuzz")
        } catch {
            require(!error.message.isEmpty, "an error without a message")
            return
        }
        guard script.parameters.allSatisfy({ $0.defaultValue != nil }) else { return }
        let bound: (sql: String, values: [String])
        do {
            bound = try script.bound([:])
        } catch {
            require(false, "a script whose parameters all have defaults does not bind: \(error)")
            return
        }
        require(
            bound.values.count <= script.parameters.count,
            "\(bound.values.count) values for \(script.parameters.count) parameters")
        for number in 1...max(1, bound.values.count) where !bound.values.isEmpty {
            require(bound.sql.contains("($\(number)::"), "$\(number) is never used in \(bound.sql.debugDescription)")
        }
        do {
            let again = try OperatorScript(
                parsing: "-- job: fuzz\n-- does: x\n-- schedule: y\n" + bound.sql, expectedName: "fuzz")
            require(again.sql == bound.sql, "the bound SQL reads back as \(again.sql.debugDescription)")
        } catch {
            require(false, "the bound SQL \(bound.sql.debugDescription) is not a valid script: \(error)")
        }
    }
}
