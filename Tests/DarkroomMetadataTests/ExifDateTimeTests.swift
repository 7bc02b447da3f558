import DarkroomMetadata
import Foundation
import Testing

@Suite struct ExifDateTimeTests {
    /// 2008-10-22T16:28:39Z, computed independently of the parser: 14174 days after the epoch.
    private let dscn0010Instant = Date(timeIntervalSince1970: 14174 * 86_400 + 16 * 3600 + 28 * 60 + 39)

    @Test func wallClockWithoutOffsetIsUTC() {
        #expect(ExifDateTime.parse("2008:10:22 16:28:39", offset: nil) == dscn0010Instant)
        #expect(dscn0010Instant == ISO8601DateFormatter().date(from: "2008-10-22T16:28:39Z"))
    }

    @Test(arguments: [
        ("+02:00", -2 * 3600),
        ("-05:30", 5 * 3600 + 30 * 60),
        ("Z", 0),
        ("+00:00", 0),
        ("+14:00", -14 * 3600),
        ("+05:45\0", -(5 * 3600 + 45 * 60)),
        ("   :  ", 0),  // EXIF's "unknown"
        ("", 0),
    ])
    func offsetShiftsToUTC(offset: String, shift: Int) {
        let parsed = ExifDateTime.parse("2008:10:22 16:28:39", offset: offset)
        #expect(parsed == dscn0010Instant.addingTimeInterval(TimeInterval(shift)))
    }

    @Test(arguments: ["+2:00", "02:00", "+02:60", "+15:00", "+0200", "UTC", "+02:00:00", "z"])
    func malformedOffsetsGiveNil(offset: String) {
        #expect(ExifDateTime.parse("2008:10:22 16:28:39", offset: offset) == nil)
    }

    @Test(arguments: ["2008:10:22 16:28:39\0", "2008:10:22 16:28:39 ", "2008:10:22 16:28:39\0\0 "])
    func trailingPaddingIsTolerated(value: String) {
        #expect(ExifDateTime.parse(value, offset: nil) == dscn0010Instant)
    }

    @Test(arguments: [
        "0000:00:00 00:00:00", "    :  :     :  :  ", "", "   ",
        "2008:10:22T16:28:39", "2008:10:22 16:28", "2008:10:22",
        "2008:13:01 00:00:00", "2008:00:10 00:00:00", "2023:02:29 00:00:00", "2008:04:31 00:00:00",
        "2008:10:22 24:00:00", "2008:10:22 12:60:00", "2008:10:22 12:00:60", "20a8:10:22 16:28:39",
        " 2008:10:22 16:28:39", "2008:10:22 16:28:39x",
    ])
    func invalidValuesGiveNil(value: String) {
        #expect(ExifDateTime.parse(value, offset: nil) == nil)
    }

    @Test func calendarEdges() {
        #expect(
            ExifDateTime.parse("2024:02:29 12:00:00", offset: nil)
                == ISO8601DateFormatter().date(from: "2024-02-29T12:00:00Z"))
        #expect(
            ExifDateTime.parse("2000:02:29 00:00:00", offset: nil)
                == ISO8601DateFormatter().date(from: "2000-02-29T00:00:00Z"))
        #expect(ExifDateTime.parse("1900:02:29 00:00:00", offset: nil) == nil)
        #expect(ExifDateTime.parse("1970:01:01 00:00:00", offset: nil) == Date(timeIntervalSince1970: 0))
        #expect(ExifDateTime.parse("1969:12:31 23:59:59", offset: nil) == Date(timeIntervalSince1970: -1))
        #expect(
            ExifDateTime.parse("2001:01:01 00:00:00", offset: "+01:00") == Date(timeIntervalSinceReferenceDate: -3600))
    }

    /// ISO 8601, as XMP writes dates and some writers put them in EXIF's date tags.
    @Test(arguments: [
        ("2008-10-22T16:28:39", nil as String?, 0.0),
        ("2008-10-22 16:28:39", nil, 0),
        ("2008-10-22T16:28:39\0 ", nil, 0),
        ("2008-10-22T18:28:39+02:00", nil, 0),
        ("2008-10-22T18:28:39+0200", nil, 0),
        ("2008-10-22T18:28:39+02", nil, 0),
        ("2008-10-22T11:58:39-04:30", nil, 0),
        ("2008-10-22T16:28:39Z", "+05:00", 0),  // its own zone wins over OffsetTime's
        ("2008-10-22T18:28:39", "+02:00", 0),  // OffsetTime's when it has none
        ("2008-10-22T16:28:39.25", nil, 0.25),
        ("2008-10-22T18:28:39.123456789+02:00", nil, 0.123456789),
        ("2008-10-22T16:28", nil, -39),
    ])
    func iso8601(value: String, offset: String?, shift: Double) {
        let parsed = ExifDateTime.parse(value, offset: offset)
        // A fraction rounds differently from one epoch to another: within a microsecond.
        #expect(
            parsed.map { abs($0.timeIntervalSince(dscn0010Instant) - shift) < 1e-6 } == true,
            "\(String(describing: parsed))")
    }

    @Test(arguments: [
        "2008-10-22", "2008-10-22T", "2008-10-22T16", "2008-13-22T16:28:39", "2008-02-30T16:28:39",
        "2008-10-22T24:00:00", "2008-10-22T16:28:60", "2008-10-22T16:28:39+15:00", "2008-10-22T16:28:39+02:60",
        "2008-10-22T16:28:39.", "2008-10-22T16:28:39.1234567890", "2008-10-22T16:28:39 junk",
        "2008-10-22T16:28:39+2", "2008-10-22T16:28:39z", "2008/10/22T16:28:39", "2008-10-22X16:28:39",
        "2008-10-22T16:28:39" + String(repeating: "0", count: 40),
    ])
    func malformedISO8601GivesNil(value: String) {
        #expect(ExifDateTime.parse(value, offset: nil) == nil)
    }
}
