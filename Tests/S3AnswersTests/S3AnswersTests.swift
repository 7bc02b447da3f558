import ByteStreams
import LibCurl
import S3Answers
import Testing

/// The server's XML is input from outside: whatever it is, reading it returns strings or nil.
@Suite struct S3XMLTests {
    @Test func s3ErrorDocumentsAreClassified() {
        func error(_ status: Int, _ code: String) -> S3Error {
            S3Error.answer(
                status,
                body: Array(
                    "<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>m &amp; n</Message></Error>".utf8),
                bucket: "b", key: "k", operation: "GET")
        }
        let signature = error(403, "SignatureDoesNotMatch")
        #expect(signature.code == .rejected && !signature.isTransient && signature.s3Code == "SignatureDoesNotMatch")
        #expect(
            signature.description.contains("s3://b/k") && signature.message.contains("AWS_SECRET_ACCESS_KEY")
                && signature.message.contains("m & n"))
        #expect(signature.streamError(object: "k").code == .rejected)
        #expect(error(404, "NoSuchKey").streamError(object: "k").code == .notFound)
        #expect(error(503, "SlowDown").code == .throttled && error(503, "SlowDown").isTransient)
        #expect(
            error(500, "InternalError").isTransient
                && error(500, "InternalError").streamError(object: "k").code == .unavailable)
        #expect(error(400, "RequestTimeout").code == .throttled)
        #expect(error(412, "PreconditionFailed").code == .preconditionFailed)
        #expect(
            S3Error.answer(502, body: Array("not xml at all <".utf8), bucket: "b", key: "k", operation: "GET").code
                == .serverError)
    }

    @Test func aTransferFailureKeepsLibcurlsErrorAsItsCause() {
        let refused = CurlError(
            code: .unreachable, curlCode: 7, message: "Couldn't connect to server", object: "http://s3")
        let error = S3Error.transfer(refused, bucket: "b", key: "k", operation: "GET")
        #expect(error.code == .unreachable && error.isTransient && error.cause?.code == .unreachable)
        #expect(error.cause?.curlCode == 7 && error.streamError(object: "k").code == .unavailable)
        #expect(error.description.contains("Couldn't connect to server") && error.message.contains("server is up"))
        let refusedURL = CurlError(code: .failed, curlCode: 3, message: "URL using bad/illegal format", object: "x")
        let bad = S3Error.transfer(refusedURL, bucket: "b", key: "k", operation: "GET")
        #expect(bad.code == .unexpected && !bad.isTransient && bad.cause?.code == .failed)
    }

    @Test func listingsAreReadByElementWithEntitiesDecoded() {
        let page = S3XML(
            Array(
                """
                <?xml version="1.0"?><ListBucketResult><IsTruncated>true</IsTruncated>\
                <Contents><Key>p/renders/1/2.jpg</Key><LastModified>2026-11-23T12:00:00.000Z</LastModified></Contents>\
                <Contents><Key>p/a&amp;b &lt;c&gt; &quot;d&quot;</Key></Contents>\
                <NextContinuationToken>t=</NextContinuationToken></ListBucketResult>
                """.utf8))
        let entries = page.elements(named: "Contents")
        #expect(entries.count == 2 && entries[0].value(of: "Key") == "p/renders/1/2.jpg")
        #expect(entries[1].value(of: "Key") == "p/a&b <c> \"d\"" && entries[1].value(of: "LastModified") == nil)
        #expect(page.value(of: "IsTruncated") == "true" && page.value(of: "NextContinuationToken") == "t=")
        #expect(S3XML.escape("\"a\"&<b>") == "&quot;a&quot;&amp;&lt;b&gt;")
    }

    @Test func hostileDocumentsGiveNothingOrStrings() {
        var state: UInt64 = 42
        let alphabet = Array("<>/&;KeyCode ContentsError\u{0}\u{FF}amp".utf8)
        for length in [0, 1, 7, 64, 4096] {
            for _ in 0..<50 {
                let bytes: [UInt8] = (0..<length).map { _ in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return alphabet[Int(state >> 33) % alphabet.count]
                }
                let document = S3XML(bytes)
                _ = document.value(of: "Key")
                _ = document.elements(named: "Contents").map { $0.value(of: "Code") }
                _ = S3Error.answer(500, body: bytes, bucket: "b", key: "k", operation: "GET")
            }
        }
        for text in [
            "<Key>", "</Key><Key>", "<Key><Key>x</Key>", "<Code>SlowDown", "&amp", "<Error><Code></Code></Error>",
        ] {
            let document = S3XML(Array(text.utf8))
            _ = document.value(of: "Key")
            #expect(
                S3Error.answer(503, body: Array(text.utf8), bucket: "b", key: "k", operation: "GET").code
                    == .serverError)
        }
        #expect(S3XML(Array("<Key><Key>x</Key>".utf8)).value(of: "Key") == "<Key>x")
    }
}
