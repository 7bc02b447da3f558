import Foundation

/// exiftool, the independent reader: nil when it is not installed.
public enum ExifTool {
    public static let path: String? = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs exiftool with `arguments`, `input` on its standard input; its standard output.
    public static func run(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path!)
        process.arguments = arguments
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardInput = input == nil ? nil : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input))
            try stdin.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }

    /// The tags exiftool reads from a file (or, with `input`, from stdin), numbers as numbers.
    public static func tags(_ arguments: [String], input: [UInt8]? = nil) throws -> [String: Any] {
        let json = try run(["-j", "-n"] + arguments, input: input)
        let array = try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]]
        return array?.first ?? [:]
    }
}
