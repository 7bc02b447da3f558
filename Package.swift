// swift-tools-version:6.1
import PackageDescription

// The C libraries come from Debian's -dev packages; `make deps` installs them.
let package = Package(
    name: "darkroom",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "darkroom", targets: ["darkroom"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
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
        .target(name: "DarkroomQueue", dependencies: [
            "LibPQ",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "DarkroomWorker", dependencies: [
            "DarkroomImaging", "DarkroomMetadata", "DarkroomAdjustments", "DarkroomQueue", "DarkroomStorage", "ByteStreams",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "darkroom", dependencies: [
            "DarkroomWorker", "DarkroomQueue", "DarkroomImaging", "DarkroomAdjustments", "DarkroomStorage", "ByteStreams", "LibPQ",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),

        // Shared by the test targets: fresh PostgreSQL databases and the bundled fixtures.
        .target(name: "DarkroomTestSupport", dependencies: ["LibPQ", "ByteStreams"], path: "Tests/DarkroomTestSupport"),

        .testTarget(name: "JPEGTurboTests", dependencies: ["JPEGTurbo", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomImagingTests", dependencies: ["DarkroomImaging", "JPEGTurbo", "ByteStreams", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomMetadataTests", dependencies: [
            "DarkroomMetadata", "LibExif", "DarkroomTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DarkroomAdjustmentsTests", dependencies: ["DarkroomAdjustments", "DarkroomTestSupport"]),
        .testTarget(name: "DarkroomQueueTests", dependencies: [
            "DarkroomQueue", "LibPQ", "DarkroomTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DarkroomWorkerTests", dependencies: [
            "DarkroomWorker", "DarkroomQueue", "DarkroomTestSupport", "DarkroomMetadata", "DarkroomAdjustments", "JPEGTurbo",
            "DarkroomImaging", "DarkroomStorage", "ByteStreams", "LibPQ", .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
