// swift-tools-version:6.1
import PackageDescription

// The pixel loops run optimised in debug builds too: unoptimised, the test suite spends most of
// its time in them. Swift's overflow and bounds checks stay on (-O, not -Ounchecked).
var optimizedInDebug: [SwiftSetting] { [.unsafeFlags(["-O"], .when(configuration: .debug))] }

// The C libraries come from Debian's -dev packages; `make deps` installs them.
let package = Package(
    name: "darkroom",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "darkroom", targets: ["darkroom"]),
        // Every module that parses bytes from outside, for the fuzz targets in Tests/Fuzz (a
        // package of its own, built with sanitizers; `make fuzz`). A new parser joins a list:
        // the parsers of data link no codec; the codecs and the renderer are apart.
        .library(
            name: "DarkroomParsers",
            targets: [
                "ByteStreams", "EditVocabulary", "DarkroomMetadata", "LibExif", "DarkroomAdjustments", "Zlib",
                "DarkroomOperatorScripts", "S3Answers", "GainMaps",
            ]),
        .library(name: "DarkroomCodecs", targets: ["JPEGTurbo", "LibHeif", "LibWebP", "LittleCMS", "DarkroomImaging"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // SHA-256 of imported originals (BoringSSL's, with the CPU's SHA extensions where present).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        // Metrics: libraries record through swift-metrics; the executable bootstraps Prometheus.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // HTTP: `darkroom serve` (the operators' dashboard: sessions, bcrypt password hashes) and
        // `/metrics` (worker --metrics-listen, serve).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.0.0"),
        // Already built for Hummingbird; the route tests take its in-memory channel from it
        // (Tests/DarkroomWebTests/RouterTesting.swift), and the listeners' request deadlines are
        // channel handlers (DarkroomMetricsEndpoint/RequestDeadlines.swift).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // Already built for Hummingbird: the HTTP parts those handlers see.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        // Already built for Hummingbird; the route tests build requests with its types.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // C boundaries: one per library.
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        // libjpeg reports fatal errors by longjmp; this tiny C target owns the setjmp.
        .target(name: "CJPEGBoundary", dependencies: ["CJPEG"]),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // The object store's HTTP client: libcurl signs AWS SigV4 itself (CURLOPT_AWS_SIGV4).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),
        // Little CMS 2: CMYK and YCCK JPEGs to RGB through their own ICC profile.
        .systemLibrary(
            name: "CLCMS",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]
        ),
        // zlib: the raw DEFLATE of Apple Photos' adjustment data.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libwebp: WebP renditions (thumbnails, previews). libwebpmux's .pc requires libwebp.
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"])]
        ),

        // System calls without a C library wrapper: openat2(2), which keeps the storage's opens
        // beneath its root.
        .target(name: "CSystemCalls"),
        // The decoders' process boundary: a child started with nothing but its channel, and the
        // seccomp filter it puts on itself (docs/hostile-input.md lists what it allows).
        .target(name: "CSandbox"),
        // Owns the child process and its channel: spawn, frames, wait, and the confinement.
        .target(name: "ProcessSandbox", dependencies: ["CSandbox"]),

        // Byte sources and sinks: what codecs read and write, whatever the storage.
        .target(name: "ByteStreams", dependencies: ["CSystemCalls"]),
        // HDR gain maps without pixels: the MPF index, the gain-map XMP (hdrgm, Apple's), ISO
        // 21496-1 metadata, Apple's headroom, and the math that applies a map.
        .target(name: "GainMaps", swiftSettings: optimizedInDebug),
        // Durations as numbers, and the one backoff with jitter (job retries, reconnects, S3).
        .target(name: "Timing"),
        // Text from outside made safe for a terminal and a log line: one escaping rule for the
        // command line, its log handler and what a decoding child wrote.
        .target(name: "PrintableText"),

        // Thin Swift owners of the C handles.
        .target(name: "JPEGTurbo", dependencies: ["CJPEGBoundary", "CJPEG", "ByteStreams"]),
        .target(name: "LibPQ", dependencies: ["CPostgres", "Timing"]),
        .target(name: "LibExif", dependencies: ["CExif"]),
        .target(name: "LibHeif", dependencies: ["CHeif", "ByteStreams", "GainMaps"]),
        .target(name: "LibCurl", dependencies: ["CCurl"]),
        .target(name: "LittleCMS", dependencies: ["CLCMS"]),
        .target(name: "Zlib", dependencies: ["CZlib"]),
        .target(name: "LibWebP", dependencies: ["CWebP"]),

        // Domain modules.
        // What an edit says, as values: operations, orientations, sizes, LUTs. Below both the
        // parsers of adjustment data and the renderer, so the parsers link no codec.
        .target(name: "EditVocabulary", swiftSettings: optimizedInDebug),
        .target(
            name: "DarkroomImaging",
            dependencies: [
                "EditVocabulary", "JPEGTurbo", "LibHeif", "LibWebP", "LittleCMS", "ByteStreams", "GainMaps",
                "CSystemCalls",
            ],
            swiftSettings: optimizedInDebug),
        // The storage layout and the seam every object goes through (local filesystem today).
        .target(name: "DarkroomStorage", dependencies: ["ByteStreams"]),
        // SHA-256 as hex, the one way content is named (originals, LUTs, S3 payloads). Apart, so
        // the fuzz build of the parsers needs no crypto library.
        .target(name: "ContentDigest", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // S3-compatible object storage behind the same seam (streamed reads with ranged resumes,
        // multipart uploads), and the factory that picks a backend from DARKROOM_STORAGE.
        // What an S3-compatible server answers: its XML documents and its errors, classified.
        // Apart from the client so the fuzz build of its parsers needs no crypto library.
        .target(name: "S3Answers", dependencies: ["ByteStreams", "LibCurl"]),
        .target(
            name: "DarkroomObjectStore",
            dependencies: [
                "DarkroomStorage", "ByteStreams", "LibCurl", "S3Answers", "Timing", "ContentDigest",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "DarkroomMetadata",
            dependencies: [
                "LibExif", "GainMaps",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "DarkroomAdjustments",
            dependencies: [
                "EditVocabulary", "Zlib",
            ]),
        // Everything that talks to PostgreSQL: the schema and every statement (its SQL lives in SQL/
        // as .sql files, embedded in the binary: no bundle to deploy), assets, adjustments, the job
        // queue, the dashboard's sessions and the operator scripts' runs. The only module above LibPQ,
        // which it imports internally: the modules above hold its opaque DatabaseConnection.
        .target(
            name: "DarkroomDatabase",
            dependencies: [
                "LibPQ", "Timing",
                .product(name: "Logging", package: "swift-log"),
            ], resources: [.embedInCode("SQL")]),
        // Runs the operator's SQL files in Jobs/ (not to be confused with queued render jobs),
        // and lists and removes render files through the storage for the cleanup among them.
        .target(
            name: "DarkroomOperatorScripts",
            dependencies: [
                "DarkroomDatabase", "DarkroomStorage", "ByteStreams",
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Brings photos into the storage (content-addressed by SHA-256) and the catalogue.
        .target(
            name: "DarkroomImport",
            dependencies: [
                "DarkroomDatabase", "DarkroomStorage", "DarkroomMetadata", "DarkroomImaging", "DarkroomAdjustments",
                "DarkroomWorker",
                "ByteStreams", "ContentDigest",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Metric names and labels, what the worker records through swift-metrics, the Prometheus
        // registry the executable bootstraps, and the queue's gauges read from the views per scrape.
        .target(
            name: "DarkroomMetrics",
            dependencies: [
                "DarkroomDatabase", "Timing",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        // `/metrics` and `/healthz` over HTTP (Hummingbird): the worker's own listener, and a route
        // `serve` mounts.
        .target(
            name: "DarkroomMetricsEndpoint",
            dependencies: [
                "DarkroomMetrics", "DarkroomDatabase",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "DarkroomWorker",
            dependencies: [
                "DarkroomImaging", "DarkroomMetadata", "DarkroomAdjustments", "DarkroomDatabase", "DarkroomStorage",
                "ByteStreams", "DarkroomMetrics", "Timing", "ContentDigest", "ProcessSandbox", "PrintableText",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]),
        // `darkroom serve`: server-rendered pages over the same SQL views the CLI reads, sign-in,
        // CSRF, actions through the SQL API, before/after thumbnails (decoded in the worker's
        // sandbox, `DecoderSandbox`).
        .target(
            name: "DarkroomWeb",
            dependencies: [
                "DarkroomDatabase", "DarkroomStorage", "DarkroomImaging", "DarkroomAdjustments", "ByteStreams",
                "DarkroomMetricsEndpoint", "Timing", "DarkroomWorker",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .executableTarget(
            name: "darkroom",
            dependencies: [
                "DarkroomWeb", "DarkroomWorker", "DarkroomImport", "DarkroomDatabase", "DarkroomOperatorScripts",
                "DarkroomImaging",
                "DarkroomAdjustments", "DarkroomStorage", "DarkroomObjectStore", "ByteStreams",
                "DarkroomMetrics", "DarkroomMetricsEndpoint", "Timing", "PrintableText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),

        // Shared by the test targets: fresh PostgreSQL databases, the bundled fixtures and
        // damaged copies of them made at test time.
        .target(
            name: "DarkroomTestSupport",
            dependencies: [
                "LibPQ", "ByteStreams", "DarkroomDatabase", "DarkroomObjectStore", "DarkroomStorage", "JPEGTurbo",
                "LibHeif", "CHeif", "LibCurl", "LittleCMS", "Timing", "GainMaps",
                .product(name: "Logging", package: "swift-log"),
            ], path: "Tests/DarkroomTestSupport"),

        .testTarget(name: "GainMapsTests", dependencies: ["GainMaps", "DarkroomTestSupport"]),
        .testTarget(name: "ZlibTests", dependencies: ["Zlib"]),
        .testTarget(name: "LibWebPTests", dependencies: ["LibWebP", "DarkroomTestSupport", "JPEGTurbo"]),
        .testTarget(name: "TimingTests", dependencies: ["Timing"]),
        .testTarget(name: "LibCurlTests", dependencies: ["LibCurl", "DarkroomTestSupport"]),
        .testTarget(name: "LibExifTests", dependencies: ["LibExif", "DarkroomTestSupport"]),
        .testTarget(name: "S3AnswersTests", dependencies: ["S3Answers", "ByteStreams", "LibCurl"]),
        .testTarget(
            name: "DarkroomStorageTests", dependencies: ["DarkroomStorage", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(
            name: "DarkroomImportTests",
            dependencies: [
                "DarkroomImport", "DarkroomDatabase", "DarkroomStorage", "DarkroomImaging", "DarkroomTestSupport",
                "DarkroomAdjustments", "DarkroomMetadata", "ByteStreams", "LibPQ",
                .product(name: "Logging", package: "swift-log"),
            ]),

        .testTarget(name: "LibHeifTests", dependencies: ["LibHeif", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(
            name: "JPEGTurboTests", dependencies: ["JPEGTurbo", "CJPEG", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(
            name: "DarkroomImagingTests",
            dependencies: [
                "DarkroomImaging", "JPEGTurbo", "LibHeif", "ByteStreams", "DarkroomTestSupport", "GainMaps",
                // The reference values of the CMYK conversions come from Little CMS itself.
                "CLCMS",
            ]),
        .testTarget(
            name: "DarkroomMetadataTests",
            dependencies: [
                "DarkroomMetadata", "LibExif", "LibHeif", "DarkroomTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "DarkroomObjectStoreTests",
            dependencies: [
                "DarkroomObjectStore", "S3Answers", "DarkroomStorage", "DarkroomOperatorScripts", "ByteStreams",
                "LibCurl", "DarkroomTestSupport", "Timing", "ContentDigest",
            ]),
        .testTarget(
            name: "DarkroomAdjustmentsTests",
            dependencies: ["DarkroomAdjustments", "DarkroomImaging", "DarkroomTestSupport", "Zlib"]),
        .testTarget(
            name: "DarkroomDatabaseTests",
            dependencies: [
                "DarkroomDatabase", "LibPQ", "DarkroomTestSupport", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "DarkroomOperatorScriptsTests",
            dependencies: [
                "DarkroomOperatorScripts", "DarkroomDatabase", "DarkroomStorage", "ByteStreams", "LibPQ",
                "DarkroomTestSupport",
            ]),
        .testTarget(name: "LibPQTests", dependencies: ["LibPQ", "DarkroomTestSupport"]),
        // The sandbox's filter tried for real: a probe that confines itself as a decoding child
        // does, then tries one forbidden (or allowed) thing (built with the tests; not shipped).
        .executableTarget(name: "SandboxProbe", dependencies: ["CSandbox"], path: "Tests/SandboxProbe"),
        .testTarget(name: "ProcessSandboxTests", dependencies: ["ProcessSandbox", "DarkroomTestSupport"]),
        .testTarget(
            name: "DarkroomWebTests",
            dependencies: [
                "DarkroomWeb", "DarkroomDatabase", "DarkroomStorage", "DarkroomTestSupport", "LibPQ", "ByteStreams",
                "JPEGTurbo", "DarkroomImaging", "DarkroomWorker",
                "DarkroomMetrics", "DarkroomMetricsEndpoint", "Timing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "DarkroomMetricsTests",
            dependencies: [
                "DarkroomMetrics", "DarkroomMetricsEndpoint", "DarkroomDatabase", "DarkroomTestSupport", "LibPQ",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The command line's own behaviour, through the real executable (the render command's
        // options, roles, refusals); end-to-end runs through a worker stay in DarkroomWorkerTests.
        .testTarget(
            name: "darkroomTests",
            dependencies: [
                "DarkroomTestSupport", "DarkroomAdjustments", "DarkroomDatabase", "DarkroomImaging", "ByteStreams",
                "LibPQ", "Zlib",
            ]),
        .testTarget(
            name: "DarkroomWorkerTests",
            dependencies: [
                "DarkroomWorker", "DarkroomMetrics", "DarkroomMetricsEndpoint", "DarkroomDatabase",
                "DarkroomTestSupport", "DarkroomMetadata",
                "DarkroomAdjustments", "JPEGTurbo", "DarkroomImaging", "DarkroomStorage", "DarkroomOperatorScripts",
                "DarkroomImport",
                "DarkroomObjectStore", "ByteStreams", "LibPQ", "LibHeif", "Zlib", "Timing", "ProcessSandbox",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
    ]
)

// A file uses the members of a module only if it imports that module itself (SE-0444): with the
// imports each module declares (Tests/DarkroomDatabaseTests/ModuleGraphTests.swift), the
// compiler keeps the walls between layers.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
