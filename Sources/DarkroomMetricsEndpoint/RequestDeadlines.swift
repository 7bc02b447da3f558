import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is too slow for `ServerLimits`: one per connection, after
/// the HTTP codec, with `RawBytesWatch` in front of the codec (which keeps a partial head to
/// itself) to see when a request starts. `RequestClock` decides; this keeps the one timer.
final class RequestDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ServerLimits
    private var clock: RequestClock<NIODeadline>?
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(limits: ServerLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        clock = RequestClock(limits: limits, opened: .now()) { $0 + TimeAmount($1) }
        do {
            try context.pipeline.syncOperations.addHandler(RawBytesWatch(deadlines: self), position: .first)
        } catch {
            // A pipeline that refuses a handler is closing already.
            context.close(promise: nil)
            return
        }
        rearm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: clock?.headArrived(at: .now())
        case .body: break
        case .end: clock?.requestEnded()
        }
        rearm()
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            clock?.responseEnded(at: .now())
            rearm()
        }
        context.write(data, promise: promise)
    }

    /// From `RawBytesWatch`, on the same event loop.
    func bytesArrived() {
        guard clock?.phase == .idle else { return }
        clock?.bytesArrived(at: .now())
        rearm()
    }

    private func rearm() {
        timer?.cancel()
        timer = nil
        guard let context, let deadline = clock?.deadline else { return }
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            guard let context = self.context, let clock = self.clock, clock.isExpired(at: .now()) else { return }
            context.close(promise: nil)
        }
    }
}

/// Tells `RequestDeadlines` that bytes arrived, before the codec swallows a partial head.
final class RawBytesWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Weak: the pipeline may drop the two in either order as the connection closes.
    private weak var deadlines: RequestDeadlines?

    init(deadlines: RequestDeadlines) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines?.bytesArrived()
        context.fireChannelRead(data)
    }
}
