import Hummingbird
import Logging

/// Answers only requests addressed to one of the dashboard's own host names. A page on another
/// site that rebinds its name to this machine's address (DNS rebinding) reaches the listener
/// with that site's name in `Host`: refused here, before any session or page.
struct HostCheck<Context: RequestContext>: RouterMiddleware {
    /// Lower-case names and addresses, without a port (IPv6 without brackets).
    let allowed: Set<String>

    /// What a browser on this machine calls it: its loopback names.
    static var loopbackNames: Set<String> { ["localhost", "127.0.0.1", "::1"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let authority = request.head.authority ?? ""
        guard let host = Self.hostName(authority), allowed.contains(host) else {
            context.logger.notice(
                "refused a request for a host name this dashboard does not answer to",
                metadata: ["host": "\(authority)", "path": "\(request.uri.path)"])
            return Page.refusal(
                .misdirectedRequest,
                "This dashboard does not answer to that host name. Its operator lists the names it does with serve --allowed-host."
            )
        }
        return try await next(request, context)
    }

    /// A name as an operator writes it (`dash.example.com`, `10.0.0.5:8080`, `::1`, `[::1]`), as
    /// `hostName` reads it from a request.
    static func configuredName(_ name: String) -> String? {
        let bareIPv6 = !name.hasPrefix("[") && name.filter { $0 == ":" }.count > 1
        return bareIPv6 ? name.lowercased() : hostName(name)
    }

    /// `authority`'s host, lower case, without its port: `[::1]:8080` is `::1`. nil: not a host.
    static func hostName(_ authority: String) -> String? {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else {
                return nil
            }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            host = host[..<colon]
        }
        // A name may end in the root's dot (`localhost.`): the same name.
        if host.hasSuffix(".") { host = host.dropLast() }
        return host.isEmpty ? nil : String(host)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
