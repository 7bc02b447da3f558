import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// The route tests' client lets go of each request's channel (LeakSanitizer found one leaked
/// per request while they were left open).
@Suite struct RouterTestingTests {
    struct ChannelContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        let channel: any Channel

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    struct WeakChannel: Sendable {
        weak var channel: (any Channel)?
    }

    @Test func aRequestsChannelIsClosedAndReleased() async throws {
        let seen = NIOLockedValueBox<[WeakChannel]>([])
        let router = Router(context: ChannelContext.self)
        router.get("/") { _, context in
            seen.withLockedValue { $0.append(WeakChannel(channel: context.channel)) }
            return "seen"
        }
        try await Application(router: router).test(.router) { client in
            let answer = try await client.execute(uri: "/", method: .get)
            #expect(answer.status == .ok)
        }
        let channels = seen.withLockedValue { $0 }
        #expect(channels.count == 1)
        #expect(channels.allSatisfy { $0.channel == nil })
    }
}
