import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import DarkroomTestSupport
import DarkroomWeb
import Foundation
import JPEGTurbo
import LibPQ
import Testing

/// The dashboard as a person uses it, in Debian's headless Chromium driven over the DevTools
/// protocol: sign in through the form, watch a batch's bar move while a real worker drains it,
/// retry a failed job with its button, open an asset and see its before/after images. Every
/// screenshot is saved under `.build/dashboard-screenshots/` and checked not to be blank.
@Suite(.serialized) struct BrowserTests {
    static let photos = [
        "gps/DSCN0010.jpg", "canon_hdr_NO.jpg", "orientation/landscape_3.jpg", "hdr/iphone_hdr_NO.jpg",
        "Nikon_D70.jpg", "gps/DSCN0021.jpg",
    ]
    static let edits = [
        #"{"operations":[{"op":"sepia","intensity":0.8},{"op":"vignette"}]}"#,
        #"{"operations":[{"op":"colorControls","saturation":0,"contrast":1.3}]}"#,
    ]

    /// `.build/dashboard-screenshots` (or $DARKROOM_SCREENSHOTS).
    static var screenshotFolder: String {
        if let folder = ProcessInfo.processInfo.environment["DARKROOM_SCREENSHOTS"], !folder.isEmpty { return folder }
        var url = Bundle.main.bundleURL
        while url.path != "/" && url.lastPathComponent != ".build" { url.deleteLastPathComponent() }
        return (url.path == "/" ? FileManager.default.temporaryDirectory : url).appendingPathComponent(
            "dashboard-screenshots"
        ).path
    }

    @Test func signInWatchABatchDrainRetryAFailureAndSeeBeforeAndAfter() async throws {
        try await TestDatabase.withFreshDatabase { url in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "darkroom-browser-\(UUID().uuidString)"
            ).path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let shots = Self.screenshotFolder
            try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
            let darkroom = DarkroomBinary(databaseURL: url, storage: folder + "/storage")
            try FileManager.default.createDirectory(atPath: folder + "/storage", withIntermediateDirectories: true)
            try darkroom.run(["migrate"])
            // What a photo service serves beside the display copy, which the asset page shows.
            _ = try darkroom.run(["rendition", "add", "thumb", "--format", "webp", "--longest-side", "320"])
            _ = try darkroom.run(["rendition", "add", "preview", "--format", "avif", "--longest-side", "640"])
            let imported = try darkroom.run(["import"] + Self.photos.map { Fixtures.exifSample($0).path })
            let assets = imported.split(separator: "\n").compactMap { line in
                Int64(line.split(separator: "\t")[0].dropFirst("asset ".count))
            }
            #expect(assets.count == Self.photos.count)

            let setup = JobQueue(try DatabaseConnection(url), logger: .quiet)
            for edit in Self.edits {
                for asset in assets {
                    _ = try setup.enqueue(
                        assetID: asset, formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                        data: Array(edit.utf8), batch: "spring")
                }
            }
            let broken = try setup.enqueue(
                assetID: assets[0], formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[{"op":"solarize"}]}"#.utf8), batch: "spring")
            let total = Self.edits.count * assets.count + 1
            // Two versions of a filter, and one asset's edit using the older, outside the batch.
            let luts = Fixtures.root.appendingPathComponent("luts").path
            _ = try darkroom.run(["filter", "add", "dusk", "1.0.0", luts + "/obs-grayscale.cube"])
            _ = try darkroom.run(["filter", "add", "dusk", "1.1.0", luts + "/obs-original.cube"])
            _ = try setup.enqueue(
                assetID: assets[2], formatIdentifier: "io.darkroom.pipeline", formatVersion: "1.0.0",
                data: Array(#"{"operations":[{"op":"filter","name":"dusk","version":"1.0.0"}]}"#.utf8))

            var accounts = AccountFile(path: folder + "/accounts")
            try accounts.set(name: "olga", role: .operator, password: "correct horse battery")
            try accounts.save()
            let accountsPath = accounts.path
            // The server in a process of its own, as operators run it: nothing this test process
            // does (other suites holding the cooperative threads) can keep a page waiting.
            try await onThread {
                let server = try ServeProcess(
                    darkroom, arguments: ["--accounts", accountsPath, "--log-level", "critical"])
                defer { #expect(server.stop() == 0, "serve stops cleanly on SIGTERM") }
                let base = server.base
                let connection = try DatabaseConnection(url)
                let queue = JobQueue(connection, logger: .quiet)
                let browser = try Chromium()
                var checked: [String] = []
                func shoot(_ name: String) throws {
                    let path = shots + "/" + name
                    let (png, jpeg) = try browser.screenshot(to: path)
                    #expect(png.count > 10_000, "\(name) is \(png.count) bytes")
                    #expect(try Self.isNotBlank(jpeg), "\(name) looks blank")
                    checked.append(path)
                }

                // Signing in through the form: the browser keeps the cookie and sends the token.
                try browser.open(base + "/batches/spring")
                #expect(try browser.evaluate("location.pathname") as? String == "/sign-in")
                try shoot("sign-in.png")
                #expect(
                    try scalar(connection, "SELECT count(*) FROM darkroom.dashboard_sessions").int == 0,
                    "the form stores nothing")
                try browser.evaluate(
                    """
                    document.querySelector('input[name=name]').value = 'olga';
                    document.querySelector('input[name=password]').value = 'correct horse battery';
                    document.querySelector('form.signin').submit(); true
                    """)
                try browser.waitUntil("location.pathname === '/batches/spring' && document.readyState === 'complete'")
                #expect(try scalar(connection, "SELECT count(*) FROM darkroom.dashboard_sessions").int == 1)
                #expect(try browser.evaluate("document.querySelector('progress').value") as? Double == 0)
                try shoot("batch-queued.png")

                // The bar moves while a real worker drains the batch (the page refreshes itself).
                // Half the batch waits (run_at tomorrow) until the page has shown the first half
                // done, so the bar stops between empty and full however fast this machine renders.
                _ = try connection.query(
                    """
                    UPDATE darkroom.jobs SET run_at = now() + interval '1 day'
                     WHERE id IN (SELECT id FROM darkroom.jobs WHERE batch = 'spring' ORDER BY id OFFSET $1)
                    """, [.int(Int64(total / 2))])
                let drain = ["worker", "--drain", "--concurrency", "1", "--log-level", "critical"]
                var worker = try darkroom.start(drain)
                var released = false
                var seen: [Double] = [0]  // as the page showed it above
                var shotMidway = false
                // Until the worker has drained the batch (a separate process rendering on cores the
                // suites beside this one share: no time limit but a hang guard), then until the
                // page's next refresh shows it.
                let hangGuard = Date().addingTimeInterval(1200)
                var drainedAt: Date?
                while Date() < hangGuard && Date() < (drainedAt ?? .distantFuture).addingTimeInterval(30) {
                    if !released && !worker.isRunning, let last = seen.last, last > 0 {
                        _ = try connection.query(
                            "UPDATE darkroom.jobs SET run_at = now() WHERE batch = 'spring' AND state = 'queued'")
                        worker.waitUntilExit()
                        worker = try darkroom.start(drain)
                        released = true
                    }
                    if released && drainedAt == nil && !worker.isRunning { drainedAt = Date() }
                    if let value = try browser.evaluate("document.querySelector('progress').value") as? Double,
                        value != seen.last
                    {
                        seen.append(value)
                        if !shotMidway && value > 0 && value < Double(total) {
                            try shoot("batch-draining.png")
                            shotMidway = true
                        }
                    }
                    if seen.last == Double(total) { break }
                    usleep(200_000)
                }
                if worker.isRunning { worker.terminate() }
                worker.waitUntilExit()
                #expect(seen.last == Double(total), "the bar reached \(seen)")
                #expect(seen.count >= 3, "the bar moved through \(seen)")
                #expect(seen == seen.sorted(), "the bar never went back: \(seen)")
                #expect(
                    try browser.evaluate("document.getElementById('summary').textContent") as? String
                        == (try queue.progress(ofBatch: "spring"))?.summaryLine)
                try shoot("batch.png")
                // The command line prints the same numbers, from the same views.
                let cli = try darkroom.run(["status", "--batch", "spring"])
                #expect(
                    cli.hasPrefix(
                        (try browser.evaluate("document.getElementById('summary').textContent") as? String ?? "?")
                            + "\n"))
                #expect(cli.contains("failures by code: unknown_operation 1"))
                #expect(
                    try browser.evaluate("document.body.textContent.includes('unknown_operation')") as? Bool == true)
                let status = try darkroom.run(["status"])
                #expect(status.contains("last hour: \(total) succeeded, 1 failed, 0 cancelled"), "\(status)")

                // A failed job, retried with its button.
                try browser.open(base + "/failures?batch=spring")
                #expect(try browser.evaluate("document.getElementById('job-\(broken)') !== null") as? Bool == true)
                try shoot("failures.png")
                // Without the page's token the same request is refused.
                #expect(
                    try browser.evaluate("fetch('/jobs/\(broken)/retry', {method: 'POST'}).then(r => r.status)")
                        as? Double == 403)
                try browser.evaluate(
                    "document.querySelector('form[action=\"/jobs/\(broken)/retry\"] button').click(); true")
                try browser.waitUntil("document.querySelector('.flash') !== null")
                #expect(
                    (try browser.evaluate("document.querySelector('.flash').textContent") as? String)?.contains(
                        "job \(broken) queued again") == true)
                let state = try connection.query("SELECT state FROM darkroom.jobs WHERE id = $1", [.int(broken)])[0][
                    "state"
                ].decode(String.self)
                #expect(state == "queued")

                // An asset: its chain and the original beside each layer, every image loaded.
                try browser.open(base + "/assets/\(assets[1])", seconds: 90)
                let layers = try AssetStore(connection).currentChain(of: assets[1]).count
                let images =
                    try browser.evaluate(
                        "Array.from(document.querySelectorAll('figure img')).map(i => i.naturalWidth)") as? [Double]
                    ?? []
                #expect(layers >= 1)
                #expect(images.count == 2 * layers, "the original beside each of its \(layers) layer(s): \(images)")
                #expect(images.allSatisfy { $0 >= 240 }, "every thumbnail decoded: \(images)")
                // The current look's renditions, each file as stored, decoded by the browser
                // itself (JPEG, WebP, AVIF).
                let renditions =
                    try browser.evaluate(
                        "Array.from(document.querySelectorAll('img.rendition')).map(i => [i.alt, i.naturalWidth])")
                    as? [[Any]] ?? []
                #expect(
                    renditions.map { $0[0] as? String } == [
                        "rendition display", "rendition preview", "rendition thumb",
                    ], "\(renditions)")
                let recorded = try connection.query(
                    """
                    SELECT r.width FROM darkroom.adjustment_renditions AS r
                      JOIN darkroom.assets AS s ON s.current_adjustment_id = r.adjustment_id
                     WHERE s.id = $1 ORDER BY r.name
                    """, [.int(assets[1])]
                ).map { Double($0["width"].int ?? -1) }
                #expect(renditions.map { $0[1] as? Double } == recorded, "\(renditions) against \(recorded)")
                #expect(recorded.count == 3, "\(recorded)")
                try shoot("asset.png")

                // Thumbnails are made one at a time (a debug build is slow at it): allow time.
                try browser.open(base + "/batches/spring/sample", seconds: 180)
                let pairs = try browser.evaluate("document.querySelectorAll('.pair').length") as? Double
                #expect(pairs == Double(min(12, Self.edits.count * assets.count)), "the newest 12 changes at most")
                #expect(
                    try browser.evaluate("Array.from(document.images).every(i => i.naturalWidth > 0)") as? Bool == true)
                try shoot("batch-sample.png")
                // A worker in the middle of its work says what it holds of its memory budget.
                _ = try JobQueue(connection, logger: .quiet).heartbeat(
                    WorkerIdentity(name: "photos-7/0", host: "render-3", pid: 4242, release: "0.24.0"),
                    lease: .seconds(60), jobs: [], formats: [],
                    memory: WorkerMemoryReport(reservedBytes: 212 << 20, jobsWaiting: 1))
                try browser.open(base + "/")
                let workerRow =
                    try browser.evaluate("document.querySelector('tr.worker-alive').textContent") as? String ?? ""
                #expect(workerRow.contains("212 MiB in use, 1 waiting for memory"), "\(workerRow)")
                // Every render was made by this build with its default settings: none is stale,
                // and against other output settings every asset with a layer is.
                #expect(try browser.evaluate("document.getElementById('stale').textContent") as? String == "0")
                #expect(
                    try StaleRenders(connection).count(build: RenderBuild(quality: 50).json)
                        == Int64(
                            try scalar(
                                connection,
                                "SELECT count(*) FROM darkroom.assets WHERE current_adjustment_id IS NOT NULL"
                            ).int ?? -1))
                try shoot("overview.png")
                // The filters: each version with the assets whose current chain uses it.
                try browser.open(base + "/filters")
                #expect(
                    try browser.evaluate("document.getElementById('filter-dusk@1.0.0').lastElementChild.textContent")
                        as? String == "1")
                #expect(
                    try browser.evaluate("document.getElementById('filter-dusk@1.1.0').lastElementChild.textContent")
                        as? String == "0")
                try shoot("filters.png")
                #expect(checked.count == 9)
            }
        }
    }

    /// A screenshot of a real page has many shades; a blank one has one or two.
    static func isNotBlank(_ jpeg: [UInt8]) throws -> Bool {
        let decoder = try JPEGDecoder(source: ChunkedSource(jpeg, maxChunk: 1 << 16))
        let (width, height) = try decoder.start()
        var row = [UInt8](repeating: 0, count: width * 3)
        var shades = Set<UInt8>()
        for _ in 0..<height {
            _ = try row.withUnsafeMutableBytes { try decoder.readRows(into: $0, rowStride: width * 3, rowCount: 1) }
            for x in stride(from: 0, to: width * 3, by: 3 * 7) {
                shades.insert(UInt8((Int(row[x]) + Int(row[x + 1]) + Int(row[x + 2])) / 3))
            }
        }
        return shades.count > 40
    }
}

/// Runs blocking work (Chromium's pipe, a worker) on a thread of its own, off Swift's few
/// cooperative ones, yet in the test's task: its expectations are recorded against this test.
func onThread(_ body: @Sendable () throws -> Void) async throws {
    let thread = DedicatedThreads(count: 1, name: "test-blocking")
    defer { thread.shutdown() }
    try await withTaskExecutorPreference(thread) { try body() }
}

/// The built `darkroom` executable, as an operator would run it.
struct DarkroomBinary: Sendable {
    let databaseURL: String
    let storage: String

    static var executable: URL {
        let folder = Bundle.main.bundleURL.deletingLastPathComponent()
        return [Bundle.main.bundleURL, folder].map { $0.appendingPathComponent("darkroom") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? folder.appendingPathComponent("darkroom")
    }

    /// Starts it; its standard output goes to `output` (else nowhere).
    func start(_ arguments: [String], output: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = output ?? FileHandle.nullDevice
        try process.run()
        return process
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = databaseURL
        environment["DARKROOM_STORAGE"] = storage
        environment.merge(TestDatabase.roleEnvironment(forDatabaseAt: databaseURL)) { $1 }
        return environment
    }

    /// Runs to the end and returns stdout; a non-zero exit is an error.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = PipeReader.readAll(output.fileHandleForReading.fileDescriptor)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Chromium.Failure(
                description: "darkroom \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
