import DarkroomAdjustments
import EditVocabulary

/// What every editor promises for data a worker accepted: encoding its operations gives data
/// (within the editor's limit) that decodes to the same operations, and upgrading the data
/// gives data that renders the same. A refusal is an `AdjustmentError`.
public func checkEditor(_ identifier: String, version: String, data: [UInt8]) {
    let registry = EditorRegistry.standard
    let operations: [ImageOperation]
    do {
        operations = try registry.operations(identifier: identifier, version: version, data: data)
    } catch {
        requireTyped(error, AdjustmentError.self)
        return
    }
    do {
        let encoded = try registry.encode(operations, identifier: identifier)
        let decoded = try registry.operations(
            identifier: identifier, version: encoded.formatVersion, data: encoded.data)
        require(decoded == operations, "\(identifier): encode → decode gave \(decoded), not \(operations)")
        let upgraded = try registry.upgrade(identifier: identifier, version: version, data: data)
        let replayed = try registry.operations(
            identifier: identifier, version: upgraded.formatVersion, data: upgraded.data)
        require(replayed == operations, "\(identifier): the upgraded data renders \(replayed), not \(operations)")
    } catch {
        require(false, "\(identifier): data it accepted does not survive its own encoder: \(error)")
    }
}
