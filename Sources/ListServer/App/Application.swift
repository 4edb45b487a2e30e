import FoundationEssentials
import Glibc
import ListDomain
import Logging

/// A running ListServer: the store and the lists over it, the slow store and detail cache, the router, and the
/// HTTP server, wired from `Settings`. ``ServerCommand`` runs one; end-to-end tests run several on port 0.
final class Application: Sendable {
    let settings: Settings
    let cache: DetailCache
    /// The encoded images in front of the image workers.
    let images: ImageCache
    /// The metrics served at `/metrics` and the access log.
    let observability: Observability
    /// Every write goes through it.
    let writes: WriteCoordinator
    private let store: any ListStore
    private let server: HTTPServer
    /// The threads that draw and encode images; stopped after the server.
    private let imageWorkers: ImageWorkers
    private let growth: Task<Void, Never>?
    /// Keeps datasets' last uses and expires idle ones (``DatasetLifecycle``).
    private let lifecycle: Task<Void, Never>
    /// Hears the commits of other servers sharing a PostgreSQL store; nil with SQLite.
    private let listener: PostgresListener?
    /// The chat's simulated participants, stopped before the drain.
    private let chatActivity: ChatActivityDriver<ContinuousClock>

    /// Opens the store, builds the domain and starts serving on the configured address.
    ///
    /// - Parameters:
    ///   - settings: What to serve, where, and what to measure and log.
    ///   - clock: The slow store's clock.
    ///   - accessLogger: Where access lines go when ``SettingKey/accessLog`` is on; by default nowhere, so that
    ///     embedders and tests choose (`Main` passes the process's `ListServer.access` logger).
    ///   - faults: The limits of `?delay_ms` and the injected faults; by default those `settings` configure.
    /// - Throws: A store that cannot be opened (its message names the path and what is wrong), or a socket that
    ///   cannot be bound.
    static func start(
        settings: Settings,
        clock: any Clock<Duration> = ContinuousClock(),
        accessLogger: Logger = Logger(label: "ListServer.access") { _ in SwiftLogNoOpLogHandler() },
        faults: FaultSettings? = nil
    ) async throws -> Application {
        let store = try await openStore(settings)
        let lists: ListRegistry
        do {
            // Only the default list is read now; a dataset's rows on its first use, so start-up costs the same
            // with 10,000 datasets on disk as with none.
            let names = try await store.listNames()
            let defaultList = try await store.loadList(ListRegistry.defaultList)
            lists = ListRegistry(
                seed: settings.seed, count: settings.itemCount,
                stored: defaultList.map { [ListRegistry.defaultList: $0] } ?? [:], unloaded: names, now: WallTime.now(),
                memoryBudget: settings.maxMemoryBytes)
        } catch {
            await store.close()
            throw error
        }
        let defaultList = lists.state(of: ListRegistry.defaultList)
        let slowStore = SlowStore(catalog: defaultList.catalog, latency: settings.latency, clock: clock)
        let cache = DetailCache(store: slowStore, capacity: settings.cacheCapacity)
        let imageWorkers: ImageWorkers
        do {
            imageWorkers = try ImageWorkers(count: settings.imageWorkers, queueLimit: settings.imageQueueLimit)
        } catch {
            await store.close()
            throw error
        }
        let images = ImageCache(
            encoder: imageWorkers, latency: settings.imageLatency, capacityBytes: settings.imageCacheBytes,
            clock: clock)
        let observability = Observability(
            settings: settings, accessLogger: accessLogger, routes: Route.templates,
            journalDataset: Router.journalDataset(of:route:datasetField:),
            wallMillisecondsNow: WallTime.now().milliseconds)
        let metrics = observability.metrics
        var commitObserver: (@Sendable (Duration, Int) -> Void)?
        if let metrics {
            commitObserver = { duration, count in metrics.writes.recordCommit(duration, writes: count) }
        }
        // The feed's memory window never reaches further back than the store keeps (data.changes_kept): a replay
        // from memory and one from the store then agree on what is "no longer kept".
        // The windows of recent changes get a quarter of what the lists may take (32 MiB by default).
        let feed = ChangeFeed(
            store: store, lists: lists, recentCapacity: min(1024, settings.changesKept),
            windowBytes: settings.maxMemoryBytes / 4)
        let writes = WriteCoordinator(
            lists: lists, feed: feed, store: store,
            idempotencyTTL: .seconds(settings.idempotencyTTLSeconds), wallClock: { WallTime.now() },
            commitObserver: commitObserver, remoteChangeObserver: Self.resetsDetails(cache),
            maxDatasets: settings.maxDatasets, maxDatasetBytes: settings.maxDatasetBytes)
        var events = EventSettings()
        events.heartbeat = .milliseconds(settings.heartbeatMs)
        events.maxWait = .milliseconds(settings.maxWaitMs)
        events.maxBufferBytes = settings.eventBufferBytes
        events.maxBufferedBytes = settings.eventBufferedBytes
        let router = Router(
            writes: writes, events: events, cache: cache, images: images, paging: settings.paging,
            observability: observability,
            service: ServiceOptions(settings), faultInjector: FaultInjector(seed: settings.faultSeed),
            faultSeed: settings.faultSeed, faults: faults ?? FaultSettings(settings), chat: settings.chat)
        let listener = (store as? PostgresStore).map { Self.listen(to: $0, for: writes, profiles: router) }
        let server: HTTPServer
        do {
            try await router.applyStoredProfiles()  // the profiles as they were (durable: PUT stores them first)
            server = try HTTPServer.start(
                host: settings.host, port: settings.port, threads: settings.threads, limits: settings.limits,
                router: router, observability: observability, writes: writes, events: events)
        } catch {
            imageWorkers.stop()
            listener?.stop()
            await store.close()
            throw error
        }
        var mayGrow: (@Sendable () -> Bool)?
        if let listener { mayGrow = { listener.isGrowing } }
        let growth =
            settings.growEveryMs > 0
            ? grow(writes, every: .milliseconds(settings.growEveryMs), whenever: mayGrow) : nil
        Allocator.releaseFreedPages()  // what start-up freed (the store's check of its file) goes back now
        let lifecycle = DatasetLifecycle.start(
            writes: writes, ttl: .seconds(settings.datasetTTLSeconds), wallClock: { WallTime.now() },
            expired: {
                [faults = router.faultInjectors, profiles = router.profiles, journal = observability.journal] name in
                faults.drop(name)
                profiles.set(nil, for: name)
                journal?.remove(name)
            },
            expireProfiles: { [journal = observability.journal] unused in
                _ = await router.expireIdleProfiles(unusedFor: unused, limit: DatasetLifecycle.expiriesPerPass)
                journal?.removeIdle(for: unused)  // a dataset only ever read has no rows to expire with
            })
        return Application(
            settings: settings, cache: cache, images: images, observability: observability, writes: writes,
            store: store, server: server, imageWorkers: imageWorkers, listener: listener, growth: growth,
            lifecycle: lifecycle, chatActivity: router.chatActivity)
    }

    /// The detail cache serves the default list's catalog: when another server resets that list (perhaps to
    /// another seed), this one's cache starts over too, as the resetting server's did.
    private static func resetsDetails(_ cache: DetailCache) -> @Sendable (String, [Change]) -> Void {
        { list, changes in
            guard list == ListRegistry.defaultList,
                case .reset(let reset) = changes.last(where: { if case .reset = $0.event { true } else { false } })?
                    .event
            else { return }
            cache.reset(to: Catalog(seed: reset.seed, count: reset.count))
        }
    }

    /// Listens for the commits of other servers sharing `store`, and catches this server's copy of each list
    /// up that is behind (a copy at or past the sequence number heard, this server's own commits, is left alone).
    /// A catch-up that fails (the database restarting) is tried again, backing off from 100 ms to 5 s, for about
    /// half a minute: an idle list must not stay behind until someone writes to it.
    private static func listen(to store: PostgresStore, for writes: WriteCoordinator, profiles router: Router)
        -> PostgresListener
    {
        // Profiles another server changed, read and set one at a time, in the order heard: two reads in flight at
        // once could set an older profile after a newer one. Nil: every profile (after a reconnection).
        let (changedProfiles, heard) = AsyncStream<String?>.makeStream()
        // This server's own direct changes go through the same queue: read back from the store in order with what
        // was heard, the store's state is set last (ProfileRegistry.changedDirectly).
        router.profiles.onDirectChange { heard.yield($0) }
        Task {
            for await name in changedProfiles {
                if let name {
                    let stored: StoredProfile?
                    do {
                        stored = try await store.profile(of: name)
                    } catch {
                        continue  // unreachable: the reconnection reads every profile again
                    }
                    router.applyStored(stored, of: name)
                } else {
                    try? await router.applyStoredProfiles()
                }
            }
        }
        return PostgresListener(
            url: store.url, reachability: store.reachability, onProfile: { heard.yield($0) },
            onStop: { heard.finish() }
        ) { [lists = writes.lists] list, sequence in
            guard let sequence else {
                // Removed elsewhere (expired): a copy in memory goes at its catch-up, which finds no rows.
                if lists.isLoaded(list) {
                    Task { await writes.refresh(list) }
                } else {
                    lists.forgetStored(list)
                }
                return
            }
            // Reads of the list wait for the catch-up from now on (Router+Replicas.swift); one task catches the list
            // up, to whatever was heard by the time it is level.
            guard lists.hear(list, sequence: sequence) else { return }
            Task {
                var delay = Duration.milliseconds(100)
                for _ in 0..<12 {
                    await writes.refresh(list)
                    if !lists.isBehind(list) { return }
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(5))
                }
                lists.forgetHeard(list)
            }
        }
    }

    /// The store `settings` name: the PostgreSQL database at ``SettingKey/dataURL`` when one is set, else the SQLite
    /// file at ``SettingKey/dataPath``.
    private static func openStore(_ settings: Settings) async throws -> any ListStore {
        if let url = settings.dataURL {
            return try await PostgresStore.open(
                url: url, poolSize: settings.dataPoolSize, changesKept: settings.changesKept,
                idempotencyTTL: .seconds(settings.idempotencyTTLSeconds))
        }
        return try await SQLiteStore.open(
            path: settings.dataPath,
            synchronous: settings.dataSynchronous == .full ? .full : .normal,
            changesKept: settings.changesKept,
            idempotencyTTL: .seconds(settings.idempotencyTTLSeconds))
    }

    private init(
        settings: Settings, cache: DetailCache, images: ImageCache, observability: Observability,
        writes: WriteCoordinator, store: any ListStore, server: HTTPServer, imageWorkers: ImageWorkers,
        listener: PostgresListener?, growth: Task<Void, Never>?, lifecycle: Task<Void, Never>,
        chatActivity: ChatActivityDriver<ContinuousClock>
    ) {
        self.chatActivity = chatActivity
        self.lifecycle = lifecycle
        self.listener = listener
        self.images = images
        self.imageWorkers = imageWorkers
        self.settings = settings
        self.cache = cache
        self.observability = observability
        self.writes = writes
        self.store = store
        self.server = server
        self.growth = growth
    }

    /// ``SettingKey/growEveryMs``: one generated item at the end of the default list per interval, each a committed
    /// `created` change like a POST's (they share the id sequence). Ticks are counted from the start, so a late
    /// wake-up adds the items it missed in one commit.
    ///
    /// - Parameter mayGrow: With a shared store, whether this server is the one that grows (its listener holds
    ///   the growth lock); the ticks while it is not are skipped, not made up later. nil: always.
    private static func grow(
        _ writes: WriteCoordinator, every interval: Duration, whenever mayGrow: (@Sendable () -> Bool)?
    ) -> Task<Void, Never> {
        Task {
            let clock = ContinuousClock()
            let start = clock.now
            var ticks: Int64 = 0
            while !Task.isCancelled {
                do { try await clock.sleep(until: start + interval * (ticks + 1)) } catch { return }
                let due = (clock.now - start).attoseconds / interval.attoseconds
                let added = UInt64(max(0, Int64(due) - ticks))
                ticks = Int64(due)
                guard mayGrow?() ?? true else { continue }
                _ = await writes.submit(WriteOperation(list: ListRegistry.defaultList, action: .grow(added)))
            }
        }
    }

    /// The port actually bound.
    var port: Int { server.port }

    /// How many datasets have simulated participants now (their profiles' `chat`).
    var simulatedDatasets: Int { chatActivity.count }

    /// The client connections open now, on every loop (tests watch it).
    var openConnections: Int { server.openConnections }

    /// The bytes of large uploads received and not yet answered (``UploadBudget``; tests watch it).
    var uploadsInUse: Int { server.uploadBudget.inUse }

    /// `host:port` as bound, IPv6 in brackets.
    var address: String {
        server.host.contains(":") ? "[\(server.host)]:\(server.port)" : "\(server.host):\(server.port)"
    }

    /// Drains requests in flight (at most `grace`, by default ``SettingKey/shutdownGraceMs``), stops every loop, and
    /// closes the store once the last write has been answered.
    func shutdown(grace: Duration? = nil) async {
        growth?.cancel()
        lifecycle.cancel()
        await chatActivity.stop()  // before the drain: no simulated write meets a closing store
        await server.shutdown(grace: grace ?? settings.shutdownGrace)
        imageWorkers.stop()
        listener?.stop()
        await store.close()
    }

    /// Returns once the server has stopped.
    func waitUntilStopped() async {
        await server.waitUntilStopped()
    }
}

extension WallTime {
    /// Now, on the system's wall clock.
    @Sendable static func now() -> WallTime {
        WallTime(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
