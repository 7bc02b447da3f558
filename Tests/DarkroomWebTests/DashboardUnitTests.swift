import DarkroomDatabase
import Foundation
import Testing

@testable import DarkroomWeb

/// The pieces without I/O: escaping, forms, tokens, redirects, the account file.
@Suite struct DashboardUnitTests {
    @Test func interpolatedTextIsEscapedAndFragmentsAreNot() {
        let name = #"<script>alert("x")</script> & 'y'"#
        let fragment: HTML = "<b>\(name)</b>"
        #expect(fragment.markup == "<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</b>")
        let nested: HTML = "<p>\(fragment)</p>"
        #expect(nested.markup == "<p>" + fragment.markup + "</p>")
        let missing: String? = nil
        #expect(HTML("[\(missing)]").markup == "[]")
        #expect(HTML.joined(["<i>a</i>", "<i>b</i>"], separator: " & ").markup == "<i>a</i> &amp; <i>b</i>")
    }

    /// The asset page's "after" caption flags a render that carries an HDR gain map, and only that.
    @Test func aRenderWithAGainMapIsFlaggedHDR() {
        var layer = Adjustment(
            id: 7, assetID: 1, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0", data: [],
            renderedPath: "renders/7.jpg", renderedWidth: 10, renderedHeight: 10, renderedBytes: 100)
        #expect(AssetPages.hdrFlag(layer).markup.isEmpty)
        layer.carriesHDR = true
        #expect(AssetPages.hdrFlag(layer).markup.contains(">HDR</strong>"))
    }

    @Test func pathSegmentsArePercentEncoded() {
        #expect(urlComponent("rerender-io.darkroom.pipeline-2026") == "rerender-io.darkroom.pipeline-2026")
        #expect(urlComponent("a b/c?d&é") == "a%20b%2Fc%3Fd%26%C3%A9")
    }

    @Test func formFieldsDecodePlusAndPercent() {
        let form = FormFields("name=olga&password=a+b%26c%3D&empty=&csrf=x-y_z")
        #expect(form["name"] == "olga")
        #expect(form["password"] == "a b&c=")
        #expect(form["empty"] == "")
        #expect(form["csrf"] == "x-y_z")
        #expect(form["missing"] == nil)
    }

    @Test func tokensAreLongRandomAndComparedWhole() {
        let a = CSRF.newToken()
        let b = CSRF.newToken()
        #expect(a != b)
        #expect(a.count == 43)
        #expect(CSRF.matches(a, a))
        #expect(!CSRF.matches(b, a))
        #expect(!CSRF.matches(String(a.dropLast()), a))
        #expect(!CSRF.matches(nil, a))
        #expect(!CSRF.matches("", ""))
    }

    @Test func aSignInFormsTokenIsGoodOnlyWithItsCookieAndUntilItExpires() {
        let forms = SignInForms(key: Array(repeating: 7, count: 32))
        let cookie = SignInForms.newCookieValue()
        let now = Date()
        let token = forms.token(for: cookie, now: now)
        #expect(forms.check(token, cookie: cookie, now: now) == .valid)
        #expect(forms.check(token, cookie: cookie, now: now + Double(SignInForms.lifetime) - 1) == .valid)
        #expect(forms.check(token, cookie: cookie, now: now + Double(SignInForms.lifetime) + 1) == .expired)
        #expect(
            forms.check(token, cookie: SignInForms.newCookieValue(), now: now) == .forged, "another browser's cookie")
        #expect(
            SignInForms(key: Array(repeating: 8, count: 32)).check(token, cookie: cookie, now: now) == .forged,
            "another key")
        #expect(forms.check(token, cookie: nil, now: now) == .noCookie)
        #expect(forms.check(nil, cookie: cookie, now: now) == .noToken)
        // The last character holds two bits the bytes do not use: only the one spelling is good.
        let lastBits =
            String(token.dropLast()) + String(Character(UnicodeScalar(token.unicodeScalars.last!.value ^ 1)!))
        for malformed in ["x", CSRF.newToken(), token + "A", "+/" + token.dropFirst(2), lastBits] {
            #expect(forms.check(malformed, cookie: cookie, now: now) == .malformed, "\(malformed)")
        }
        // A later expiry written over the token's: its code no longer matches.
        var longer = Base64URL.decode(token)!
        longer[3] &+= 1
        #expect(forms.check(Base64URL.encode(longer), cookie: cookie, now: now) == .forged)
        #expect(Base64URL.decode(Base64URL.encode([0xfb, 0xff, 0x00])) == [0xfb, 0xff, 0x00])
    }

    @Test func signInSendsBackOnlyToPathsOnThisSite() {
        #expect(SignInRoutes.safeNext("/batches/spring?x=1") == "/batches/spring?x=1")
        // Browsers drop tabs and newlines anywhere in a URL and read a backslash as a slash: each of
        // these is `//evil.example/…` to them.
        let hostile: [String?] = [
            "https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:alert(1)", nil,
            "/\t/evil.example/phish", "/\n/evil.example", "/\r\n/evil.example", "/ /evil.example", "/\u{0}/evil",
            "/\u{7f}/evil", "/\u{3000}/evil.example", "/%09x\t", String(repeating: "/a", count: 2000),
        ]
        for hostile in hostile {
            #expect(SignInRoutes.safeNext(hostile) == "/", "\(hostile ?? "nil")")
        }
    }

    @Test func theAccountFileRoundTripsAndNamesItsProblems() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var file = AccountFile(path: path)
        try file.set(name: "olga", role: .operator, password: "correct horse battery")
        try file.save()
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        let loaded = try AccountFile.load(path)
        #expect(loaded.accounts["olga"]?.role == .operator)
        #expect(loaded.accounts["olga"]?.passwordHash.hasPrefix("$2b$12$") == true)
        #expect(loaded.verify(name: "olga", password: "correct horse battery")?.name == "olga")
        #expect(loaded.verify(name: "olga", password: "wrong") == nil)
        #expect(loaded.verify(name: "nobody", password: "correct horse battery") == nil)

        #expect(throws: AccountFileError.self) { try file.set(name: "olga", role: .viewer, password: "short") }
        #expect(throws: AccountFileError.self) { try file.set(name: "o l g a", role: .viewer, password: "long enough") }
        for (text, reason) in [
            ("olga operator", "found 2 field(s)"), ("olga admin $2b$12$x", "neither viewer nor operator"),
            ("olga viewer plaintext", "not bcrypt"), ("ol/ga viewer $2b$12$x", "letters, digits"),
        ] {
            try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: AccountFileError.self) { try AccountFile.load(path) }
            #expect(error?.line == 1)
            #expect(error?.description.contains(reason) == true, "\(error?.description ?? "")")
        }
    }

    @Test func theThumbnailCacheDropsTheLeastRecentlyUsedPastItsCapacity() {
        let cache = ByteCache(capacity: 10)
        cache["a"] = [UInt8](repeating: 1, count: 4)
        cache["b"] = [UInt8](repeating: 2, count: 4)
        _ = cache["a"]
        cache["c"] = [UInt8](repeating: 3, count: 4)
        #expect(cache["a"] != nil && cache["c"] != nil)
        #expect(cache["b"] == nil)
        #expect(cache.size == 8)
        cache["huge"] = [UInt8](repeating: 0, count: 11)
        #expect(cache["huge"] == nil && cache.size == 8)
    }
}
