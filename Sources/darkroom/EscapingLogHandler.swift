import Logging
import PrintableText

/// A log handler that escapes control characters (`Printable.field`) in every message and
/// metadata value before `wrapped` writes them: a sign-in name, a job's error or a worker's host
/// with a newline cannot forge a log line, nor an escape sequence drive the operator's terminal.
struct EscapingLogHandler<Wrapped: LogHandler>: LogHandler {
    var wrapped: Wrapped

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        // The handler's own and the provider's metadata are merged by `wrapped`: escape them here too.
        var own = wrapped
        own.metadata = own.metadata.mapValues(Self.escaped)
        own.metadataProvider = wrapped.metadataProvider.map { provider in
            .init { provider.get().mapValues(Self.escaped) }
        }
        var event = event
        event.message = "\(Printable.field(event.message.description))"
        event.metadata = event.metadata?.mapValues(Self.escaped)
        event.source = Printable.field(event.source)
        if let error = event.error { event.error = EscapedError(description: Printable.field("\(error)")) }
        own.log(event: event)
    }

    static func escaped(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): .string(Printable.field(text))
        case .stringConvertible(let convertible): .string(Printable.field(convertible.description))
        case .array(let values): .array(values.map(escaped))
        case .dictionary(let values):
            .dictionary(
                Dictionary(uniqueKeysWithValues: values.map { (Printable.field($0.key), escaped($0.value)) }))
        }
    }
}

/// An event's error as the log shows it, escaped.
private struct EscapedError: Error, CustomStringConvertible {
    var description: String
}
