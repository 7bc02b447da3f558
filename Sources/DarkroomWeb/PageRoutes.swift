import DarkroomDatabase
import DarkroomImaging
import DarkroomStorage
import Foundation
import Hummingbird
import HummingbirdAuth
import Logging

/// The GET pages and the thumbnails.
struct PageRoutes {
    let dashboard: Dashboard

    func add(to router: Router<DashboardContext>) {
        let logger = dashboard.logger
        router.get("/") { _, context in
            try await page(context) { session in
                OverviewPage.render(
                    try await dashboard.read { try OverviewPage.load($0, logger: logger) }, session: session)
            }
        }
        router.get("/batches") { _, context in
            try await page(context) { session in
                BatchPages.list(
                    try await dashboard.read { try JobQueue($0, logger: logger).batches() }, session: session)
            }
        }
        router.get("/batches/:name") { _, context in
            let name = try context.parameters.decoded("name")
            return try await page(context) { session in
                let (progress, codes) = try await dashboard.read { connection in
                    let queue = JobQueue(connection, logger: logger)
                    return (try queue.progress(ofBatch: name), try queue.failureCodes(ofBatch: name))
                }
                guard let progress else { throw HTTPError(.notFound, message: "There is no batch \(name).") }
                return BatchPages.detail(progress, codes: codes, session: session)
            }
        }
        router.get("/batches/:name/sample") { _, context in
            let name = try context.parameters.decoded("name")
            return try await page(context) { session in
                let (progress, changes) = try await dashboard.read { connection in
                    (
                        try JobQueue(connection, logger: logger).progress(ofBatch: name),
                        try AssetStore(connection).changes(ofBatch: name, limit: AssetPages.sampleSize)
                    )
                }
                guard let progress else { throw HTTPError(.notFound, message: "There is no batch \(name).") }
                return AssetPages.sample(batch: progress, changes: changes, session: session)
            }
        }
        router.get("/failures") { request, context in
            let filter = FailuresPage.Filter(
                code: request.uri.queryParameters.get("code"), batch: request.uri.queryParameters.get("batch"))
            return try await page(context) { session in
                let (failures, codes) = try await dashboard.read { connection in
                    let queue = JobQueue(connection, logger: logger)
                    return (
                        try queue.failures(code: filter.code, batch: filter.batch, limit: FailuresPage.limit),
                        try queue.failureCodes()
                    )
                }
                return FailuresPage.render(failures, codes: codes, filter: filter, session: session)
            }
        }
        router.get("/filters") { _, context in
            try await page(context) { session in
                FiltersPage.render(try await dashboard.read { try FilterCatalog($0).versions() }, session: session)
            }
        }
        router.get("/assets/:id") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return try await page(context) { session in
                guard let data = try await dashboard.read({ try AssetPages.load(AssetStore($0), id: id) }) else {
                    throw HTTPError(.notFound, message: "There is no asset \(id).")
                }
                return AssetPages.render(data, session: session)
            }
        }
        router.get("/assets/:id/original.jpg") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let source = try await dashboard.read { connection -> Thumbnails.Source? in
                guard let asset = try AssetStore(connection).asset(id: id) else { return nil }
                return Thumbnails.Source(
                    key: try StorageKey(asset.originalPath), orientation: Orientation(exifValue: asset.orientation))
            }
            return try await thumbnail(source, what: "asset \(id)")
        }
        router.get("/assets/:id/renditions/:name") { _, context in
            guard context.sessions.session != nil else { throw HTTPError(.forbidden, message: "Sign in first.") }
            return try await renditionFile(
                assetID: try context.parameters.require("id", as: Int64.self),
                name: try context.parameters.decoded("name"))
        }
        router.get("/assets/:id/adjustments/:file") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            let file = try context.parameters.require("file")
            guard file.hasSuffix(".jpg"), let adjustmentID = Int64(file.dropLast(4)) else {
                throw HTTPError(.notFound, message: "Thumbnails are named ADJUSTMENT.jpg.")
            }
            let adjustment = try await dashboard.read { try AssetStore($0).adjustment(id: adjustmentID, assetID: id) }
            guard let adjustment else {
                return try await thumbnail(nil, what: "adjustment \(adjustmentID) of asset \(id)")
            }
            return try await thumbnail(
                try dashboard.thumbnails.source(of: adjustment), what: "adjustment \(adjustmentID)")
        }
    }

    /// A rendition of an asset's current look, as it is stored: the browser shows its format.
    private func renditionFile(assetID: Int64, name: String) async throws -> Response {
        let file = try await dashboard.read { try AssetStore($0).currentRendition(of: assetID, name: name) }
        guard let file, file.state != "removed", let key = try? StorageKey(file.path),
            let type = Self.renditionTypes[file.format]
        else { throw HTTPError(.notFound, message: "Asset \(assetID)'s current look has no such rendition.") }
        do {
            let bytes = try await dashboard.thumbnails.storedBytes(key, maxBytes: Self.maxRenditionBytes)
            return Response(
                status: .ok,
                headers: Page.securityHeaders([
                    .contentType: type, .cacheControl: "private, max-age=86400, immutable",
                ]), body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        } catch {
            dashboard.logger.warning("cannot read a rendition", metadata: ["object": "\(key)", "error": "\(error)"])
            throw HTTPError(.notFound, message: "Rendition \(name) of asset \(assetID) cannot be read.")
        }
    }

    static let renditionTypes = ["jpeg": "image/jpeg", "webp": "image/webp", "avif": "image/avif"]
    /// Renditions are what a service serves: far below this.
    static let maxRenditionBytes = 64 << 20

    /// Renders a page for the signed-in session, shows its flash once, and turns errors into pages.
    private func page(_ context: DashboardContext, _ body: (WebSession) async throws -> HTML) async throws -> Response {
        guard let session = context.sessions.session else { throw HTTPError(.forbidden, message: "Sign in first.") }
        if session.flash != nil { context.sessions.withLockedSession { $0?.flash = nil } }
        do {
            return Page.response(try await body(session))
        } catch let error as HTTPError {
            return Page.refusal(error.status, error.body ?? error.status.reasonPhrase)
        } catch let error as DatabaseError {
            // Say what PostgreSQL said (a missing grant, a schema too old): the operator can act on it.
            dashboard.logger.error(
                "a page's query failed",
                metadata: ["error": "\(error.message)", "sqlstate": "\(error.sqlState ?? "")"])
            return Page.refusal(.internalServerError, "PostgreSQL refused this page's query: \(error.message)")
        }
    }

    private func thumbnail(_ source: Thumbnails.Source?, what: String) async throws -> Response {
        guard let source else { throw HTTPError(.notFound, message: "There is no \(what).") }
        do {
            let bytes = try await dashboard.thumbnails.thumbnail(of: source)
            return Response(
                status: .ok,
                headers: Page.securityHeaders([
                    .contentType: "image/jpeg",
                    // Stored objects never change under their key.
                    .cacheControl: "private, max-age=86400, immutable",
                ]), body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        } catch {
            dashboard.logger.warning(
                "cannot make a thumbnail", metadata: ["object": "\(source.key)", "error": "\(error)"])
            throw HTTPError(.notFound, message: "The thumbnail of \(what) cannot be made: \(error)")
        }
    }
}

extension Thumbnails {
    /// The display copy of the job's own render when it has one (smaller to read), else the
    /// stored layer itself. Renders are upright.
    func source(of adjustment: Adjustment) throws -> Source {
        if let jobID = adjustment.jobID,
            adjustment.renderedPath == StorageLayout.render(assetID: adjustment.assetID, jobID: jobID).rawValue
        {
            let display = StorageLayout.display(assetID: adjustment.assetID, jobID: jobID)
            if (try? storage.exists(display)) == true { return Source(key: display, orientation: .up) }
        }
        return Source(key: try StorageKey(adjustment.renderedPath), orientation: .up)
    }
}

extension Parameters {
    /// The path parameter `name` as it was before `urlComponent` encoded it: the router matches
    /// the raw path (so a %2F stays inside its segment) and hands segments over still encoded.
    func decoded(_ name: String) throws -> String {
        let raw = try require(name)
        guard let text = raw.removingPercentEncoding else {
            throw HTTPError(.badRequest, message: "The path's \(name) is not valid percent-encoded UTF-8.")
        }
        return text
    }
}
