import ByteStreams
import DarkroomImaging
import DarkroomMetadata
import DarkroomTestSupport
import Foundation
import Testing

/// Where and when each photo of the corpus was taken, as an import reads it, against exiftool,
/// which darkroom did not write: every date and position exiftool finds in EXIF or XMP must be
/// the one darkroom records. The table it makes is the one in Tests/Fixtures/corpus/README.md.
@Suite struct CaptureMetadataCorpusTests {
    static let corpus = Fixtures.root.appendingPathComponent("corpus")
    static let photoExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "hif", "avif"]

    /// How one field compares.
    enum Verdict: String, CaseIterable {
        case agree, missing, different
        /// exiftool finds none, and darkroom none either.
        case neither
        /// darkroom finds one exiftool does not.
        case darkroomOnly = "darkroom only"
    }

    /// Where exiftool is the one that misses: checked by hand, with the reason.
    static let exifToolMisses: [String: String] = [
        "pillow/exif_typeerror.jpg":
            "exiftool does not follow an Exif IFD pointer stored as a string (it warns: Wrong format (string) for "
            + "IFD0 0x8769 ExifOffset); libexif does, and darkroom records the DateTimeOriginal 2010:07:11 13:53:00 "
            + "found there, as libexif's `exif -m` prints it, where exiftool falls back to IFD0's ModifyDate"
    ]

    static func files() throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: corpus.path)
        var files: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if photoExtensions.contains((name as NSString).pathExtension.lowercased()) { files.append(name) }
        }
        return files.sorted()
    }

    /// What an import records: the header's EXIF and XMP, read as `Importer.register` reads them.
    static func darkroom(_ path: String) -> PhotoMetadata? {
        guard let source = try? FileSource(path: path), let header = try? SourceHeader.read(from: source) else {
            return nil
        }
        return MetadataReader.read(
            app1Payload: header.exifPayload, xmpPacket: header.xmpPacket, movieBox: header.movieBox
        ).metadata
    }

    /// exiftool's date by darkroom's order (EXIF's three dates with their offsets, then XMP's
    /// exif:DateTimeOriginal, photoshop:DateCreated, xmp:CreateDate, then an image sequence's
    /// QuickTime dates), and its position.
    static func exifTool(_ tags: [String: Any]) -> (date: Date?, latitude: Double?, longitude: Double?) {
        let order: [(String, String?)] = [
            ("EXIF:DateTimeOriginal", "EXIF:OffsetTimeOriginal"), ("EXIF:CreateDate", "EXIF:OffsetTimeDigitized"),
            ("EXIF:ModifyDate", "EXIF:OffsetTime"), ("XMP:DateTimeOriginal", nil), ("XMP:DateCreated", nil),
            ("XMP:CreateDate", nil),
            // An image sequence's: its metadata keys, its user data's ©day, its movie header's.
            ("QuickTime:CreationDate", nil), ("QuickTime:ContentCreateDate", nil), ("QuickTime:CreateDate", nil),
        ]
        let date = order.lazy.compactMap { tag, offset in
            (tags[tag] as? String).flatMap { parse($0, offset: offset.flatMap { tags[$0] as? String }) }
        }.first
        return (date, tags["Composite:GPSLatitude"] as? Double, tags["Composite:GPSLongitude"] as? Double)
    }

    /// "2024:06:01 22:19:30", with a sub-second part or a zone ("+02:00", "Z") or neither; a
    /// time without a zone is UTC, as darkroom takes it.
    static func parse(_ text: String, offset: String?) -> Date? {
        let pattern = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/
        // exiftool prints a QuickTime time of 0 (not set) as 0000:00:00 00:00:00.
        guard let match = text.trimmingCharacters(in: .whitespaces).wholeMatch(of: pattern), match.1 != "0000" else {
            return nil
        }
        var components = DateComponents()
        components.year = Int(match.1)
        components.month = Int(match.2)
        components.day = Int(match.3)
        components.hour = Int(match.4)
        components.minute = Int(match.5)
        components.second = match.6.flatMap { Int($0) } ?? 0
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard var date = calendar.date(from: components) else { return nil }
        if let zone = match.7.map(String.init) ?? offset, zone != "Z" {
            let digits = zone.filter(\.isNumber)
            guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else {
                return date
            }
            date -= Double((hours * 60 + minutes) * 60) * (zone.hasPrefix("-") ? -1 : 1)
        }
        return date
    }

    static func verdict<T>(_ ours: T?, _ theirs: T?, same: (T, T) -> Bool) -> Verdict {
        switch (ours, theirs) {
        case (nil, nil): .neither
        case (nil, _?): .missing
        case (_?, nil): .darkroomOnly
        case (let ours?, let theirs?): same(ours, theirs) ? .agree : .different
        }
    }

    /// The README's table: how many files agree, miss or differ, for the date and the position.
    static func table(_ verdicts: [(date: Verdict, position: Verdict)]) -> String {
        var lines = ["| field | " + Verdict.allCases.map(\.rawValue).joined(separator: " | ") + " |"]
        lines.append("| --- |" + String(repeating: " --- |", count: Verdict.allCases.count))
        for (name, pick) in [
            ("capture date", { (v: (date: Verdict, position: Verdict)) in v.date }), ("position", { $0.position }),
        ] {
            let counts = Verdict.allCases.map { verdict in verdicts.filter { pick($0) == verdict }.count }
            lines.append("| \(name) | " + counts.map(String.init).joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func everyDateAndPositionExifToolFindsIsDarkroomsToo() throws {
        try #require(ExifTool.path != nil, "exiftool is not installed (make tool-deps installs it)")
        let files = try Self.files()
        try #require(files.count > 40, "the corpus has \(files.count) photos")
        let tags = [
            "-G", "-EXIF:DateTimeOriginal", "-EXIF:CreateDate", "-EXIF:ModifyDate", "-EXIF:OffsetTimeOriginal",
            "-EXIF:OffsetTimeDigitized", "-EXIF:OffsetTime", "-XMP:DateTimeOriginal", "-XMP:DateCreated",
            "-XMP:CreateDate", "-QuickTime:CreationDate", "-QuickTime:ContentCreateDate", "-QuickTime:CreateDate",
            "-Composite:GPSLatitude", "-Composite:GPSLongitude",
        ]
        let json = try ExifTool.run(
            ["-j", "-n", "-q", "-m"] + tags + files.map { Self.corpus.appendingPathComponent($0).path })
        let found = try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]] ?? []
        var byPath: [String: [String: Any]] = [:]
        for entry in found { if let path = entry["SourceFile"] as? String { byPath[path] = entry } }

        var verdicts: [(date: Verdict, position: Verdict)] = []
        var problems: [String] = []
        for file in files {
            let path = Self.corpus.appendingPathComponent(file).path
            let theirs = Self.exifTool(byPath[path] ?? [:])
            let ours = Self.darkroom(path)
            let date = Self.verdict(ours?.creationDate, theirs.date) { abs($0.timeIntervalSince($1)) < 1 }
            let ourPosition = ours.flatMap { m in m.latitude.flatMap { lat in m.longitude.map { (lat, $0) } } }
            let theirPosition = theirs.latitude.flatMap { lat in theirs.longitude.map { (lat, $0) } }
            let position = Self.verdict(ourPosition, theirPosition) {
                abs($0.0 - $1.0) < 1e-6 && abs($0.1 - $1.1) < 1e-6
            }
            verdicts.append((date, position))
            for (field, verdict, detail) in [
                ("date", date, "\(String(describing: ours?.creationDate)) vs \(String(describing: theirs.date))"),
                ("position", position, "\(String(describing: ourPosition)) vs \(String(describing: theirPosition))"),
            ] where (verdict == .missing || verdict == .different) && Self.exifToolMisses[file] == nil {
                problems.append("\(file): \(field) \(verdict.rawValue): darkroom \(detail) exiftool")
            }
        }
        #expect(problems == [], "\n\(problems.joined(separator: "\n"))")
        let table = Self.table(verdicts)
        let readme = try String(contentsOf: Self.corpus.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(table), "Tests/Fixtures/corpus/README.md should hold this table:\n\(table)")
    }
}
