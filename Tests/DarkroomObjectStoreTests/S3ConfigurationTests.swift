import ContentDigest
import DarkroomStorage
import Foundation
import LibCurl
import S3Answers
import Testing
import Timing

@testable import DarkroomObjectStore

/// Settings and keys, without a server: what `DARKROOM_STORAGE=s3://…` and the AWS variables
/// turn into, and what is refused.
@Suite struct S3ConfigurationTests {
    func configuration(
        _ url: String, endpoint: String? = "http://127.0.0.1:8333", addressing: S3Configuration.Addressing? = nil
    )
        throws -> S3Configuration
    {
        try S3Configuration(
            url: url, endpoint: endpoint, region: nil, accessKeyID: "key", secretAccessKey: "secret",
            addressing: addressing)
    }

    @Test func aBucketURLGivesBucketPrefixAndDefaults() throws {
        let local = try configuration("s3://photos/fleet/2026/")
        #expect(local.bucket == "photos" && local.prefix == "fleet/2026" && local.region == "us-east-1")
        #expect(local.addressing == .path, "an endpoint means a local server: path-style")
        #expect(local.location == "s3://photos/fleet/2026")
        let key = StorageLayout.render(assetID: 4, jobID: 9)
        #expect(local.url(objectKey: local.objectKey(key)) == "http://127.0.0.1:8333/photos/fleet/2026/renders/4/9.jpg")
        #expect(local.relativeKey("fleet/2026/renders/4/9.jpg") == "renders/4/9.jpg")
        #expect(local.relativeKey("fleet/2027/renders/4/9.jpg") == nil, "nothing outside the prefix")

        let aws = try configuration("s3://photos", endpoint: nil)
        #expect(aws.addressing == .virtual && aws.prefix.isEmpty)
        #expect(
            aws.url(objectKey: "originals/ab/x.jpg") == "https://photos.s3.us-east-1.amazonaws.com/originals/ab/x.jpg")
        let virtualLocal = try configuration("s3://photos", addressing: .virtual)
        #expect(virtualLocal.url(objectKey: "a") == "http://photos.127.0.0.1:8333/a")
    }

    @Test func queriesAreSortedEncodedAndNeverBare() throws {
        let bucket = try configuration("s3://photos")
        // A bare `?uploads` is signed wrongly by libcurl 7.88: always `name=`.
        #expect(bucket.url(objectKey: "k", query: [("uploads", "")]) == "http://127.0.0.1:8333/photos/k?uploads=")
        #expect(
            bucket.url(objectKey: "", query: [("prefix", "a/b c"), ("list-type", "2")])
                == "http://127.0.0.1:8333/photos/?list-type=2&prefix=a%2Fb%20c")
        #expect(S3Configuration.encode("x+y=z~_.-") == "x%2By%3Dz~_.-")
    }

    @Test func badSettingsAreRefusedWithWhatToDo() throws {
        for (url, code) in [
            ("s3://Photos", StorageError.Code.notConfigured), ("s3://ab", .notConfigured),
            ("s3://photos/../x", .outsideRoot),
            ("s3://photos/a//b", .outsideRoot), ("s3:///x", .notConfigured), ("http://photos", .notConfigured),
        ] {
            #expect(throws: StorageError.self, "\(url)") { _ = try configuration(url) }
            do { _ = try configuration(url) } catch let error as StorageError {
                #expect(error.code == code, "\(url): \(error)")
            }
        }
        #expect(throws: StorageError.self) { _ = try configuration("s3://photos", endpoint: "ftp://host") }
        #expect(throws: StorageError.self) { _ = try configuration("s3://photos", endpoint: "http://host/path") }
        do {
            _ = try S3Configuration(
                url: "s3://photos", endpoint: nil, region: nil, accessKeyID: nil, secretAccessKey: "s")
            Issue.record("no access key must be refused")
        } catch {
            #expect(error.message.contains("AWS_ACCESS_KEY_ID"))
        }
    }

    @Test func flagsWinOverTheEnvironment() throws {
        let environment = [
            "DARKROOM_STORAGE": "s3://env-bucket/p", "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
            "AWS_REGION": "eu-west-1",
            "AWS_ACCESS_KEY_ID": "env-key", "AWS_SECRET_ACCESS_KEY": "env-secret", "DARKROOM_S3_ADDRESSING": "virtual",
            "DARKROOM_SCRATCH": "/var/tmp/x",
        ]
        let settings = try StorageSettings(storage: "s3://flag-bucket", accessKeyID: "flag-key").filled(
            from: environment)
        #expect(
            settings.storage == "s3://flag-bucket" && settings.accessKeyID == "flag-key"
                && settings.secretAccessKey == "env-secret")
        #expect(settings.region == "eu-west-1" && settings.scratch == "/var/tmp/x")
        let configuration = try #require(try settings.s3Configuration())
        #expect(configuration.addressing == .virtual && configuration.bucket == "flag-bucket")
        #expect(try StorageSettings().filled(from: ["TMPDIR": "/t"]).scratch == "/t")
        #expect(try StorageSettings(storage: "/srv/darkroom").s3Configuration() == nil, "a path is a local root")
        #expect(throws: StorageError.self) {
            _ = try StorageSettings(storage: "s3://b-1", accessKeyID: "k", secretAccessKey: "s", addressing: "dns")
                .s3Configuration()
        }
        #expect(throws: StorageError.self) { _ = try StorageSettings().open() }
    }

    @Test func secretsComeFromTheEnvironmentOrAFileNeverAFlag() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s3-secret").path
        try "from-a-file\n".write(toFile: file, atomically: true, encoding: .utf8)
        let settings = try StorageSettings(storage: "s3://b").filled(from: [
            "AWS_SECRET_ACCESS_KEY_FILE": file, "AWS_SESSION_TOKEN": "token",
        ])
        #expect(settings.secretAccessKey == "from-a-file" && settings.sessionToken == "token")
        #expect(
            try StorageSettings().filled(from: ["AWS_SECRET_ACCESS_KEY": "plain", "AWS_SECRET_ACCESS_KEY_FILE": file])
                .secretAccessKey == "plain", "the variable wins over its file")
        for (contents, reason) in [("", "is empty"), (String(repeating: "x", count: 70_000), "larger than")] {
            try contents.write(toFile: file, atomically: true, encoding: .utf8)
            let error = try #require(throws: StorageError.self) {
                _ = try StorageSettings().filled(from: ["AWS_SECRET_ACCESS_KEY_FILE": file])
            }
            #expect(error.code == .notConfigured && error.message.contains(reason) && error.message.contains(file))
            #expect(!error.message.contains("xxxx"), "a secret file's contents are never shown")
        }
        let missing = try #require(throws: StorageError.self) {
            _ = try StorageSettings().filled(from: ["AWS_SESSION_TOKEN_FILE": folder.path + "/none"])
        }
        #expect(missing.message.contains("AWS_SESSION_TOKEN_FILE") && missing.message.contains("cannot be opened"))
    }

    @Test func retriesBackOffWithinBounds() {
        let backoff = Backoff(first: .milliseconds(100), limit: .milliseconds(500), jitter: 0.5)
        let longest = S3RetryPolicy(attempts: 6, backoff: backoff, randomUnit: .fixed(0))
        #expect(
            (1...6).map(longest.delay(before:)) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400),
                .milliseconds(500), .milliseconds(500), .milliseconds(500),
            ])
        let shortest = S3RetryPolicy(attempts: 6, backoff: backoff, randomUnit: .fixed(1))
        #expect(
            (1...6).map(shortest.delay(before:)) == [
                .milliseconds(50), .milliseconds(100), .milliseconds(200),
                .milliseconds(250), .milliseconds(250), .milliseconds(250),
            ], "jitter takes up to half off")
        #expect(S3RetryPolicy(attempts: 0).attempts == 1)
        #expect(S3RetryPolicy().backoff == .objectStorage && Backoff.objectStorage.jitter > 0)
    }

    @Test func everyRequestCarriesItsPayloadHashAndTheSessionToken() throws {
        var settings = try configuration("s3://photos/p")
        settings.sessionToken = "token-1"
        let client = S3Client(settings, retry: S3RetryPolicy())
        let request = client.request("PUT", objectKey: "p/k", payloadHash: "abc")
        #expect(
            request.headers.contains("x-amz-content-sha256: abc")
                && request.headers.contains("x-amz-security-token: token-1"))
        #expect(request.signing?.region == "us-east-1" && request.signing?.accessKeyID == "key")
        #expect(
            client.request("GET", objectKey: "k").headers.contains("x-amz-content-sha256: \(S3Client.emptyPayloadHash)")
        )
        let empty = [UInt8]()
        #expect(empty.withUnsafeBytes(ContentDigest.sha256) == S3Client.emptyPayloadHash)
        #expect(
            Array("abc".utf8).withUnsafeBytes(ContentDigest.sha256)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func unfinishedUploadNamesSplitBackIntoKeyAndUploadID() {
        #expect(S3Storage.split("renders/1/2.jpg#upload=abc#upload=def") == ("renders/1/2.jpg#upload=abc", "def"))
        #expect(S3Storage.split("renders/1/2.jpg") == ("renders/1/2.jpg", nil))
    }

    @Test func listingDatesAreReadWithAndWithoutFractions() {
        #expect(
            S3Storage.parseDate("2026-11-23T12:00:00.000Z") != nil && S3Storage.parseDate("2026-11-23T12:00:00Z") != nil
        )
        #expect(S3Storage.parseDate("yesterday") == nil)
    }
}
