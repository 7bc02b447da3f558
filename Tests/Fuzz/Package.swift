// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets, one per parser of bytes from outside (docs/hostile-input.md). A package of
// its own so the root's `swift build` never needs the sanitizers; `make fuzz` builds it with
// `--sanitize fuzzer --sanitize address` (libFuzzer provides `main`) into .build-fuzz.
//
// A new target: a folder Sources/fuzz-NAME with one file defining `LLVMFuzzerTestOneInput`, and
// one line below. Seeds go in corpus/fuzz-NAME, a dictionary (optional) in dictionaries/fuzz-NAME.dict.
let parsers = [
    "fuzz-jpeg",  // JPEG header, admission (the render planner) and scanline decode: JPEGTurbo
    "fuzz-exif-read",  // EXIF APP1 payload → location, date, orientation: DarkroomMetadata over libexif
    "fuzz-exif-rewrite",  // EXIF rewrite for a render, read back: OutputExif
    "fuzz-plist",  // binary property lists: BinaryPropertyList
    "fuzz-xml-plist",  // XML property lists (.AAE sidecars): XMLPropertyList
    "fuzz-aae",  // com.apple.photo data (raw DEFLATE of JSON): ApplePhotoFormat, ApplePhotoPlan
    "fuzz-keyed-archive",  // NSKeyedArchiver archives as data: KeyedArchive
    "fuzz-pipeline",  // io.darkroom.pipeline JSON: PipelineFormat
    "fuzz-filtster",  // com.shinobicontrols.filster archives: FiltsterSettings
    "fuzz-chromakey",  // com.shinobicontrols.chromakey archives: ChromaKeySettings
    "fuzz-semver",  // format versions: SemanticVersion, against the SQL rule's pattern
    "fuzz-job-file",  // operator job files: OperatorScript header and :placeholders
    "fuzz-heif",  // HEIF/AVIF header, admission and whole-image decode: LibHeif over libheif
    "fuzz-s3-xml",  // the object store's answers (errors, listings, upload ids): S3XML, S3Error
    "fuzz-mpf",  // MPF index APP2 payloads and whole gain-map JPEGs: MPFIndex, GainMapJPEG
    "fuzz-gainmap-xmp",  // gain-map XMP packets (hdrgm, Apple's HDRGainMap): GainMapXMP
    "fuzz-xmp-metadata",  // XMP packets → capture date and location: XMPMetadata
    "fuzz-iso-gainmap",  // ISO 21496-1 gain-map metadata and HEIF tmap items: ISOGainMapMetadata
    "fuzz-apple-headroom",  // EXIF blocks → Apple MakerNote tags 33/48: AppleHeadroom
    "fuzz-cube",  // .cube LUT files (filters): CubeFile, and the filter kernel on what it reads
]

// The targets that decode pixels or run the renderer's kernels; the others link no codec.
let decodePixels: Set = ["fuzz-jpeg", "fuzz-heif", "fuzz-cube"]

let package = Package(
    name: "darkroom-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "darkroom", path: "../..")
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "DarkroomParsers", package: "darkroom")]),
        .target(
            name: "FuzzImages",
            dependencies: ["FuzzSupport", .product(name: "DarkroomCodecs", package: "darkroom")]),
    ]
        + parsers.map { name in
            .executableTarget(
                name: name,
                dependencies: ["FuzzSupport", .product(name: "DarkroomParsers", package: "darkroom")]
                    + (decodePixels.contains(name)
                        ? ["FuzzImages", .product(name: "DarkroomCodecs", package: "darkroom")] : []))
        }
)
