import PrintableText

/// Every line of `print` in this executable passes `Printable.lines`: what a field missed still
/// cannot drive the terminal.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator)
    Swift.print(Printable.lines(text), terminator: terminator)
}
