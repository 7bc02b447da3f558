/// The worker's memory budget, shared by the renders it runs at once: what each holds and who
/// waits, in the order they asked. Decisions only; `WorkerMemory` does the waiting.
///
/// First come, first served: while a render waits, later ones wait behind it even when they
/// would fit, so a stream of small renders never starves a large one.
struct MemoryPool: Sendable, Equatable {
    /// One request, from its asking to its release.
    struct Ticket: Sendable, Hashable {
        let number: Int
    }

    enum Answer: Sendable, Equatable {
        /// The bytes are the caller's now.
        case granted(Ticket)
        /// Behind others; `release` says when it is granted.
        case queued(Ticket)
        /// More than the whole budget: it would never be granted.
        case refused
    }

    struct Waiter: Sendable, Equatable {
        let ticket: Ticket
        let bytes: Int
    }

    let capacity: Int
    private(set) var reserved = 0
    private(set) var granted: [Ticket: Int] = [:]
    /// Oldest first.
    private(set) var queue: [Waiter] = []
    private var issued = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    var waiting: Int { queue.count }

    func isGranted(_ ticket: Ticket) -> Bool { granted[ticket] != nil }

    mutating func request(_ bytes: Int) -> Answer {
        let bytes = max(bytes, 0)
        guard bytes <= capacity else { return .refused }
        issued += 1
        let ticket = Ticket(number: issued)
        queue.append(Waiter(ticket: ticket, bytes: bytes))
        return admitFromHead().contains(ticket) ? .granted(ticket) : .queued(ticket)
    }

    /// A grant given back, or a waiter that stopped waiting (cancelled; granted meanwhile or not).
    /// Returns the waiters this lets in, oldest first.
    mutating func release(_ ticket: Ticket) -> [Ticket] {
        if let bytes = granted.removeValue(forKey: ticket) {
            reserved -= bytes
        } else {
            queue.removeAll { $0.ticket == ticket }
        }
        return admitFromHead()
    }

    private mutating func admitFromHead() -> [Ticket] {
        var admitted: [Ticket] = []
        while let head = queue.first, head.bytes <= capacity - reserved {
            queue.removeFirst()
            granted[head.ticket] = head.bytes
            reserved += head.bytes
            admitted.append(head.ticket)
        }
        return admitted
    }
}
