import ArgumentParser
import ByteStreams
import DarkroomAdjustments
import DarkroomDatabase
import DarkroomImaging
import DarkroomImport
import DarkroomWorker
import Foundation
import PrintableText

extension Darkroom {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render one file with adjustment data, without a database.",
            discussion:
                "For trying an edit and for benchmarks. --explain prints the render plan and its memory without rendering. An Apple Photos edit renders from its .AAE (--aae, or the one beside the input by Photos' naming when no adjustment data is given), refused by name for what darkroom cannot reproduce unless --apple-geometry-only."
        )

        @Argument(help: "The original: a JPEG, HEIC/HEIF or AVIF (told by its content).") var input: String
        @Option(name: .shortAndLong, help: "Where to write the rendered JPEG.") var output: String?
        @Option(name: .customLong("format-identifier")) var formatIdentifier: String = Self.defaultIdentifier
        @Option(name: .customLong("format-version")) var formatVersion: String = "1.0.0"
        @Option(help: "Adjustment data (JSON for io.darkroom.pipeline); default: no operations.") var data: String?
        @Option(
            name: .customLong("data-file"),
            help: "Read the adjustment data from this file (binary formats such as NSKeyedArchiver archives).")
        var dataFile: String?
        @Option(help: "An Apple Photos .AAE sidecar: its com.apple.photo edit is the adjustment.") var aae: String?
        @Flag(
            name: .customLong("apple-geometry-only"),
            help: "Render only an Apple edit's geometry, leaving out (with a warning) what darkroom cannot reproduce.")
        var appleGeometryOnly = false
        @Option(name: .customLong("memory-budget"), help: "e.g. 64MiB.") var memoryBudget: String =
            ByteCount.format(RenderLimits.defaultMemoryBudget)
        @Option(help: "JPEG quality, 1–100.") var quality: Int = OutputEncoding.defaultQuality
        @Option(
            help: "EXIF orientation 1–8 to apply instead of a JPEG's own (to a HEIF: on top of its upright decode).")
        var orientation: Int?
        @Option(
            name: .customLong("optimize-huffman"),
            help: "off, on or auto (only when it fits the budget; output then depends on the budget).")
        var huffman: RenderPlanner.HuffmanOptimisation = .off
        @Option(name: .customLong("max-pixels"), help: "Refuse images with more pixels.") var maxPixels: Int =
            RenderLimits.defaultMaxPixels
        @Option(help: "Also write a display-size copy (longest side --display-size) here.") var display: String?
        @Option(name: .customLong("display-size"), help: "Longest side of the display copy.") var displaySize: Int =
            RenderRequest.defaultDisplayLongestSide
        @Option(
            help: ArgumentHelp(
                "Also write a rendition: FORMAT:SIDE[:qQUALITY][:all|no-location|none][:source|srgb][:sdr]=PATH "
                    + "(e.g. webp:320:q80=thumb.webp; repeat for more), scaled from the same decode.",
                valueName: "spec=path"))
        var rendition: [String] = []
        @Option(
            name: .customLong("filter-file"),
            help: ArgumentHelp(
                "A filter's LUT: NAME@VERSION=PATH.cube (repeat for more). An operation without a version gets "
                    + "the newest given for its name; a sha256 in the data must be the file's.",
                valueName: "name@version=path"))
        var filterFiles: [String] = []
        @Option(help: "Threads: 2 runs the JPEG encoder beside decoding and color work.") var threads: Int = 2
        @Option(help: "keep: an original's HDR gain map goes through the edit into the output; drop: standard range.")
        var hdr: HDROutput = .keep
        @Flag(help: "Print the plan and exit.") var explain = false
        @Option(
            name: .customLong("decoder-sandbox"),
            help:
                "on: the input is decoded and the outputs encoded in a child process that holds no credential, can open no file and makes only the system calls decoding needs (docs/hostile-input.md); fresh: the child started afresh, not forked from a zygote; off: in this process."
        )
        var decoderSandbox: SandboxSetting = .on

        func validate() throws {
            guard ByteCount.parse(memoryBudget) != nil else {
                throw ValidationError("--memory-budget: cannot read \"\(memoryBudget)\"; write e.g. 64MiB")
            }
            try RenderOptionBounds.check(quality: quality)
            if let orientation, !(1...8).contains(orientation) { throw ValidationError("--orientation must be 1…8") }
            guard (1...2).contains(threads) else { throw ValidationError("--threads must be 1 or 2") }
            try RenderOptionBounds.check(displaySize: displaySize)
            for argument in rendition where RenditionArgument(argument) == nil {
                throw ValidationError(
                    "--rendition: cannot read \"\(argument)\"; write e.g. webp:320:q80=thumb.webp "
                        + "(jpeg, webp or avif; side 16…65500; quality 1…100)")
            }
            for argument in filterFiles where FilterFile(argument: argument) == nil {
                throw ValidationError("--filter-file: cannot read \"\(argument)\"; write NAME@VERSION=PATH.cube")
            }
            if !explain, output == nil { throw ValidationError("give -o OUTPUT (or --explain)") }
            if aae != nil, data != nil || dataFile != nil {
                throw ValidationError("--aae is the adjustment data: give it without --data or --data-file")
            }
        }

        func run() throws {
            try withExitCodes {
                let adjustment = try adjustment()
                var job = FileRender(
                    inputPath: input, outputPath: output ?? "/dev/null", formatIdentifier: adjustment.formatIdentifier,
                    formatVersion: adjustment.formatVersion, data: adjustment.data,
                    settings: RenderSettings(
                        quality: quality, huffman: huffman,
                        memoryBudget: ByteCount.parse(memoryBudget)!, maxPixels: maxPixels,
                        threads: threads),
                    orientation: orientation.map(Orientation.init(exifValue:)))
                job.settings.hdr = hdr
                job.settings.appleGeometryOnly = appleGeometryOnly
                let renditions =
                    (display.map { [(RenditionVersion(.display(longestSide: displaySize), version: 1), $0)] } ?? [])
                    + rendition.compactMap(RenditionArgument.init).enumerated().map { index, argument in
                        (
                            RenditionVersion(argument.rendition(named: "rendition\(index + 1)"), version: 1),
                            argument.path
                        )
                    }
                job.settings.renditions = renditions.map(\.0)
                job.renditionPaths = renditions.map(\.1)
                job.filterFiles = filterFiles.compactMap(FilterFile.init(argument:))
                do {
                    let sandbox = try decoderSandbox.checked()
                    if explain {
                        let explained = try job.explanation(in: sandbox)
                        Self.warn(explained.warnings)
                        print(explained.text)
                        return
                    }
                    let started = ContinuousClock.now
                    let summary = try job.render(in: sandbox)
                    Self.warn(summary.editWarnings + summary.renderWarnings)
                    let elapsed = ContinuousClock.now - started
                    print(
                        "\(output!)\t\(summary.outputSize)\t\(summary.outputBytes) bytes\t\(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))"
                    )
                    for (path, written) in zip(job.renditionPaths, summary.renditions) {
                        print("\(path)\t\(written.size)\t\(written.bytes) bytes")
                    }
                } catch let error as RenderError {
                    throw CommandFailure.invalidInput(error.description)
                } catch let error as StreamError {
                    throw CommandFailure.invalidInput(error.description)
                } catch let error as AdjustmentError {
                    throw CommandFailure.invalidInput(error.description)
                } catch let error as FilterFileError {
                    throw CommandFailure.invalidInput("\(error) [\(error.code.rawValue)]")
                } catch let error as JobFailure {
                    // The decoding child's failure, mapped by its own side as a worker's job's is.
                    throw CommandFailure.invalidInput("\(error.message) [\(error.code.rawValue)]")
                }
            }
        }
    }
}

extension Darkroom.Render {
    /// What the edit's plan left out (`apple_geometry_only`) and what the render met, on stderr.
    static func warn(_ warnings: [RecordedWarning]) {
        for warning in warnings {
            let text = "\(warning.code): " + (warning.object.map { "\($0): " } ?? "") + warning.message
            FileHandle.standardError.write(Data("darkroom: warning: \(Printable.field(text))\n".utf8))
        }
    }

    /// The adjustment to render: --aae's sidecar; else --data or --data-file; else, with none of
    /// them and no --format-identifier, the Apple sidecar beside the input, if any.
    func adjustment() throws -> (formatIdentifier: String, formatVersion: String, data: [UInt8]) {
        if let aae { return try sidecar(aae) }
        if data == nil, dataFile == nil, formatIdentifier == Self.defaultIdentifier {
            let url = URL(fileURLWithPath: input)
            let folder = url.deletingLastPathComponent().path
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if let name = AppleExportFiles.find(for: url.lastPathComponent, among: names).sidecar {
                let path = (folder as NSString).appendingPathComponent(name)
                FileHandle.standardError.write(
                    Data("darkroom: rendering the Apple edit in \(Printable.field(path))\n".utf8))
                return try sidecar(path)
            }
        }
        return (formatIdentifier, formatVersion, try adjustmentData())
    }

    static let defaultIdentifier = PipelineFormat.identifier

    /// An `.AAE` read within its bound.
    func sidecar(_ path: String) throws -> (formatIdentifier: String, formatVersion: String, data: [UInt8]) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= AppleSidecar.maxBytes, let bytes = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.invalidInput("\(path): cannot read it as an Apple sidecar (missing, or too large)")
        }
        do {
            let sidecar = try AppleSidecar.decode([UInt8](bytes))
            return (sidecar.formatIdentifier, sidecar.formatVersion, sidecar.data)
        } catch {
            throw CommandFailure.invalidInput("\(path): \(error)")
        }
    }

    func adjustmentData() throws -> [UInt8] {
        guard let dataFile else { return Array((data ?? #"{"operations":[]}"#).utf8) }
        guard let contents = FileManager.default.contents(atPath: dataFile) else {
            throw CommandFailure.invalidInput("\(dataFile): cannot read the adjustment data file")
        }
        return [UInt8](contents)
    }
}

extension RenderPlanner.HuffmanOptimisation: ExpressibleByArgument {}
extension HDROutput: ExpressibleByArgument {}
