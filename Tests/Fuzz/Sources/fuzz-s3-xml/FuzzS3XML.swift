import FuzzSupport
import S3Answers

/// The input is an answer of the object store. Properties: reading it by element gives strings
/// no longer than the document; every status classifies to the same kind
/// whatever the body says for the statuses decided by status alone (404, 403, 412, 429).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzS3XML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzInput(data, size) { bytes in
        let document = S3XML(bytes)
        // Bytes that are not UTF-8 become U+FFFD (3 bytes each): compare with the decoded text.
        let decoded = String(decoding: bytes, as: UTF8.self).utf8.count
        for name in ["Code", "Message", "Key", "UploadId", "LastModified", "NextContinuationToken"] {
            if let value = document.value(of: name) {
                require(value.utf8.count <= decoded, "\(name): a value longer than the document")
            }
        }
        for entry in document.elements(named: "Contents") + document.elements(named: "Upload") {
            _ = entry.value(of: "Key")
            _ = entry.value(of: "UploadId")
        }
        for (status, code) in [
            (404, S3Error.Code.notFound), (403, .rejected), (412, .preconditionFailed), (429, .throttled),
        ] {
            let error = S3Error.answer(status, body: bytes, bucket: "b", key: "k", operation: "GET")
            require(error.code == code, "HTTP \(status) classified as \(error.code)")
        }
        let server = S3Error.answer(500, body: bytes, bucket: "b", key: "k", operation: "GET")
        require(server.isTransient, "a 500 must be transient")
    }
}
