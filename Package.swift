// swift-tools-version:6.1
import PackageDescription

// The C libraries come from Debian's -dev packages; `make deps` installs them.
let package = Package(
    name: "darkroom",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "darkroom", targets: ["darkroom"]),
        // Every module that parses bytes from outside, for the fuzz targets in Tests/Fuzz (a
        // package of its own, built with sanitizers; `make fuzz`). A new parser joins this list.
        .library(name: "DarkroomParsers", targets: [
            "ByteStreams", "JPEGTurbo", "DarkroomImaging", "DarkroomMetadata", "LibExif", "DarkroomAdjustments",
            "DarkroomOperatorScripts",
        ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // SHA-256 of imported originals (BoringSSL's, with the CPU's SHA extensions where present).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
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
            name: "CExif",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"])]
        ),

        // Byte sources and sinks: what codecs read and write, whatever the storage.
        .target(name: "ByteStreams"),

        // Thin Swift owners of the C handles.
        .target(name: "JPEGTurbo", dependencies: ["CJPEGBoundary", "CJPEG", "ByteStreams"]),
        .target(name: "LibPQ", dependencies: ["CPostgres"]),
        .target(name: "LibExif", dependencies: ["CExif"]),

        // Domain modules.
        .target(name: "DarkroomImaging", dependencies: [
            "JPEGTurbo", "ByteStreams",
        ]),
        // The storage layout and the seam every object goes through (local filesystem today).
        .target(name: "DarkroomStorage", dependencies: ["ByteStreams"]),
        .target(name: "DarkroomMetadata", dependencies: [
            "LibExif",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "DarkroomAdjustments", dependencies: [
            "DarkroomImaging",
        ]),
        // Everything that talks to PostgreSQL: the schema (its SQL lives in SQL/ as .sql files,
        // embedded in the binary: no bundle to deploy), assets, adjustments and the job queue.
        .target(name: "DarkroomDatabase", dependencies: [
            "LibPQ",
            .product(name: "Logging", package: "swift-log"),
        ], resources: [.embedInCode("SQL")]),
        // Runs the operator's SQL files in Jobs/ (not to be confused with queued render jobs),
        // and lists and removes render files through the storage for the cleanup among them.
        .target(name: "DarkroomOperatorScripts", dependencies: [
            "LibPQ", "DarkroomStorage", "ByteStreams",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Brings photos into the storage (content-addressed by SHA-256) and the catalogue.
        .target(name: "DarkroomImport", dependencies: [
            "DarkroomDatabase", "DarkroomStorage", "DarkroomMetadata", "JPEGTurbo", "ByteStreams", "LibPQ",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "DarkroomWorker", dependencies: [
            "DarkroomImaging", "DarkroomMetadata", "DarkroomAdjustments", "DarkroomDatabase", "DarkroomStorage", "ByteStreams",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "darkroom", dependencies: [
            "DarkroomWorker", "DarkroomImport", "DarkroomDatabase", "DarkroomOperatorScripts", "DarkroomImaging",
            "DarkroomAdjustments", "DarkroomStorage", "ByteStreams", "LibPQ",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // Shared by the test targets: fresh PostgreSQL databases and the bundled fixtures.
        .target(name: "DarkroomTestSupport", dependencies: [
            "LibPQ", "ByteStreams", "DarkroomDatabase", .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/DarkroomTestSupport"),

        .testTarget(name: "JPEGTurboTests", dependencies: ["JPEGTurbo", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomImagingTests", dependencies: ["DarkroomImaging", "JPEGTurbo", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomMetadataTests", dependencies: [
            "DarkroomMetadata", "LibExif", "DarkroomTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DarkroomAdjustmentsTests", dependencies: ["DarkroomAdjustments", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomDatabaseTests", dependencies: [
            "DarkroomDatabase", "LibPQ", "DarkroomTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DarkroomOperatorScriptsTests", dependencies: [
            "DarkroomOperatorScripts", "DarkroomDatabase", "LibPQ", "DarkroomTestSupport",
        ]),
        .testTarget(name: "DarkroomWorkerTests", dependencies: [
            "DarkroomWorker", "DarkroomDatabase", "DarkroomTestSupport", "DarkroomMetadata", "DarkroomAdjustments", "JPEGTurbo",
            "DarkroomImaging", "DarkroomStorage", "DarkroomOperatorScripts", "DarkroomImport", "ByteStreams", "LibPQ",
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
