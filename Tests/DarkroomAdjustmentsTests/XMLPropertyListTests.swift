import DarkroomAdjustments
import Foundation
import Testing

/// The XML property-list reader: Apple's form, and what hostile files must not do.
@Suite("XML property lists")
struct XMLPropertyListTests {
    static func plist(_ body: String, prolog: String = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") -> [UInt8] {
        Array((prolog + "<plist version=\"1.0\">" + body + "</plist>").utf8)
    }

    @Test func readsEveryKind() throws {
        let value = try XMLPropertyList.decode(
            Self.plist(
                """
                <dict>
                  <key>s</key><string>a &lt;b&gt; &amp; &#x e9;</string>
                  <key>e</key><string/>
                  <key>i</key><integer>-42</integer>
                  <key>r</key><real>0.5</real>
                  <key>t</key><true/>
                  <key>f</key><false/>
                  <key>d</key><data>
                    AAEC
                    /w==
                  </data>
                  <key>when</key><date>2001-01-02T00:00:01Z</date>
                  <!-- a comment -->
                  <key>a</key><array><integer>1</integer><array/><dict/></array>
                  <key>c</key><string><![CDATA[<kept>]]></string>
                </dict>
                """.replacingOccurrences(of: "&#x e9;", with: "&#xe9;"),
                prolog: """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">

                    """))
        guard case .dictionary(let top) = value else {
            Issue.record("not a dictionary: \(value)")
            return
        }
        #expect(top["s"] == .string("a <b> & é"))
        #expect(top["e"] == .string(""))
        #expect(top["i"] == .integer(-42))
        #expect(top["r"] == .real(0.5))
        #expect(top["t"] == .bool(true) && top["f"] == .bool(false))
        #expect(top["d"] == .data([0, 1, 2, 0xFF]))
        #expect(top["when"] == .date(86_401))
        #expect(top["a"] == .array([.integer(1), .array([]), .dictionary([:])]))
        #expect(top["c"] == .string("<kept>"))
        #expect(top.keys == ["s", "e", "i", "r", "t", "f", "d", "when", "a", "c"])
    }

    @Test(arguments: [
        ("<dict><key>a</key></dict>", "expected an element"),
        ("<dict><key>a</key><string>x</string><key>a</key><string>y</string></dict>", "twice"),
        ("<dict><string>x</string></dict>", "not <key>"),
        ("<set/>", "not a property-list element"),
        ("<integer>12x</integer>", "not a 64-bit integer"),
        ("<integer>99999999999999999999</integer>", "not a 64-bit integer"),
        ("<data>AA*A</data>", "not base64"),
        ("<date>yesterday</date>", "not YYYY"),
        ("<string>&xxe;</string>", "no entities"),
        ("<string>&#0;</string>", "not a character"),
        ("<string>open", "expected </string>, found </plist"),
        ("<string>x</strin>", "expected </string>"),
        ("<true>yes</true>", "must be empty"),
        ("<array><string>x</string>", "expected </array>, found </plist"),
        ("<string>x</string><string>y</string>", "expected </plist>"),
    ])
    func refusesMalformed(body: String, expected: String) throws {
        let error = #expect(throws: AdjustmentError.self) { try XMLPropertyList.decode(Self.plist(body)) }
        #expect(error?.code == .malformedData)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
    }

    /// No DTD is read: an internal subset (where entity bombs live) is refused outright.
    @Test func refusesEntityDefinitions() throws {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <plist><string>&b;</string></plist>
            """
        let error = #expect(throws: AdjustmentError.self) { try XMLPropertyList.decode(Array(bomb.utf8)) }
        #expect(error?.message.contains("internal subset") == true)
    }

    @Test func boundsDepthCountAndSize() throws {
        let deep = String(repeating: "<array>", count: 100) + String(repeating: "</array>", count: 100)
        let tooDeep = #expect(throws: AdjustmentError.self) { try XMLPropertyList.decode(Self.plist(deep)) }
        #expect(tooDeep?.message.contains("nest more than 64") == true)
        let many = "<array>" + String(repeating: "<true/>", count: 70_000) + "</array>"
        let tooMany = #expect(throws: AdjustmentError.self) { try XMLPropertyList.decode(Self.plist(many)) }
        #expect(tooMany?.message.contains("more than 65536 values") == true)
        let huge = Self.plist("<string>" + String(repeating: "x", count: 1 << 20) + "</string>")
        let tooLarge = #expect(throws: AdjustmentError.self) { try XMLPropertyList.decode(huge) }
        #expect(tooLarge?.code == .dataTooLarge)
    }

    @Test func truncatedSidecarsAreRefusedAtEveryLength() throws {
        let whole = Self.plist(
            "<dict><key>adjustmentData</key><data>AAEC</data><key>adjustmentFormatVersion</key><string>1.4</string></dict>"
        )
        for length in 0..<whole.count {
            #expect(throws: AdjustmentError.self) { try XMLPropertyList.decode(Array(whole.prefix(length))) }
        }
        #expect(try XMLPropertyList.decode(whole) != .bool(false))
    }

    @Test func aSidecarNeedsItsThreeKeys() throws {
        let missing = #expect(throws: AdjustmentError.self) {
            try AppleSidecar.decode(Self.plist("<dict><key>adjustmentFormatIdentifier</key><string>x</string></dict>"))
        }
        #expect(missing?.message.contains("no adjustmentFormatVersion") == true)
        let notDict = #expect(throws: AdjustmentError.self) { try AppleSidecar.decode(Self.plist("<array/>")) }
        #expect(notDict?.message.contains("not a dictionary") == true)
    }
}
