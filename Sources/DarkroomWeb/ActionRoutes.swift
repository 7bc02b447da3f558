import DarkroomDatabase
import Foundation
import Hummingbird
import HummingbirdAuth

/// Retry and cancel, of one job or a whole batch: POST only, CSRF-checked by the gate, for
/// operators, each through the operator API in a transaction whose `darkroom.actor` is the
/// account's name, and each recorded by the audit.
struct ActionRoutes {
    let dashboard: Dashboard

    func add(to router: Router<DashboardContext>) {
        router.post("/jobs/:id/retry") { request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return try await act(request, context, action: "retry-job", target: "job \(id)", fallback: "/failures") {
                connection in
                try JobQueue(connection, logger: dashboard.logger).retry(jobID: id)
                    ? "job \(id) queued again" : "job \(id) is not failed or cancelled; left alone"
            }
        }
        router.post("/jobs/:id/cancel") { request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return try await act(request, context, action: "cancel-job", target: "job \(id)", fallback: "/") {
                connection in
                try JobQueue(connection, logger: dashboard.logger).cancel(jobID: id)
                    ? "job \(id) cancelled" : "job \(id) had already finished; nothing to cancel"
            }
        }
        router.post("/batches/:name/retry") { request, context in
            let name = try context.parameters.decoded("name")
            return try await act(request, context, action: "retry-batch", target: "batch \(name)", fallback: "/batches")
            { connection in
                "\(try JobQueue(connection, logger: dashboard.logger).retry(batch: name)) job(s) of batch \(name) queued again"
            }
        }
        router.post("/batches/:name/cancel") { request, context in
            let name = try context.parameters.decoded("name")
            return try await act(
                request, context, action: "cancel-batch", target: "batch \(name)", fallback: "/batches"
            ) { connection in
                "\(try JobQueue(connection, logger: dashboard.logger).cancel(batch: name)) job(s) of batch \(name) cancelled"
            }
        }
    }

    /// Checks the role, runs `body` with the actor set, records the outcome, and sends the
    /// browser back where it came from with the outcome shown once.
    private func act(
        _ request: Request, _ context: DashboardContext, action: String, target: String, fallback: String,
        _ body: @escaping @Sendable (DatabaseConnection) throws -> String
    ) async throws -> Response {
        guard let (user, role) = context.signedIn else { return Page.refusal(.forbidden, "Sign in first.") }
        guard role == .operator else {
            dashboard.audit.record(
                .init(at: Date(), actor: user, action: action, target: target, result: "refused: viewers cannot act"))
            return Page.refusal(
                .forbidden,
                "A viewer may look but not \(action.replacingOccurrences(of: "-", with: " ")); ask an operator.")
        }
        let flash: WebSession.Flash
        do {
            // The API function records the action in darkroom.audit_log with this actor.
            let result = try await dashboard.read { connection in
                try AuditTrail(connection).acting(as: user) { try body(connection) }
            }
            flash = .init(message: result, isError: false)
        } catch let error as QueueError {
            flash = .init(message: error.description, isError: true)
        } catch let error as DatabaseError where !error.isConnectionFailure {
            flash = .init(message: error.message + (error.hint.map { " (\($0))" } ?? ""), isError: true)
        }
        dashboard.audit.record(
            .init(
                at: Date(), actor: user, action: action, target: target,
                result: (flash.isError ? "refused: " : "") + flash.message))
        context.sessions.withLockedSession { $0?.flash = flash }
        return Response(status: .seeOther, headers: [.location: Self.back(request, fallback: fallback)])
    }

    /// The page the form was on (same site only), else `fallback`.
    static func back(_ request: Request, fallback: String) -> String {
        // Still percent-encoded: decoded, a batch page's %2F would become a '/' and its
        // space an invalid Location.
        guard let referer = request.headers[.referer], let url = URLComponents(string: referer),
            url.percentEncodedPath.hasPrefix("/")
        else { return fallback }
        return SignInRoutes.safeNext(url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? ""))
    }
}
