import Configuration
import FoundationEssentials
import Glibc
import ListDomain
import Logging

extension Settings {
    /// Loads and validates the settings from the command line, the environment, a JSON file and the defaults.
    ///
    /// Each key is taken from the first of these that has it: a flag that was given, its environment variable, the
    /// JSON file named by `--config` (or `LISTSERVER_CONFIG` when there is no `--config`), the built-in default.
    /// In the JSON file the dotted keys are nested objects: `{"store": {"latency": {"min_ms": 500}}}`.
    ///
    /// - `http.host` (string, default `0.0.0.0`; `--host`, `LISTSERVER_HOST`): the address to listen on, an IPv4 or
    ///   IPv6 literal or `localhost`.
    /// - `http.port` (int, default 8080; `--port`, `LISTSERVER_PORT`): the TCP port, 0...65535; 0 picks any free port.
    /// - `http.threads` (int, default 0; `--threads`, `LISTSERVER_THREADS`): event-loop threads, 0...256; 0 means one
    ///   per active processor, resolved here so ``threads`` is always concrete.
    /// - `http.max_request_line_bytes` (int, default 8192; `--max-request-line-bytes`,
    ///   `LISTSERVER_MAX_REQUEST_LINE_BYTES`): the longest request line, 64...1048576, at most `http.max_header_bytes`;
    ///   a longer one gets 414.
    /// - `http.max_header_bytes` (int, default 16384; `--max-header-bytes`, `LISTSERVER_MAX_HEADER_BYTES`): the longest
    ///   request head (request line, header lines and every line ending), 256...1048576; a longer one gets 431.
    /// - `http.max_header_count` (int, default 100; `--max-header-count`, `LISTSERVER_MAX_HEADER_COUNT`): the most
    ///   header fields in a request, 1...1000; more get 431.
    /// - `http.max_body_bytes` (int, default 65536; `--max-body-bytes`, `LISTSERVER_MAX_BODY_BYTES`): the largest
    ///   `Content-Length` accepted, 0...16777216; a larger one gets 413.
    /// - `http.max_connections` (int, default 10000; `--max-connections`, `LISTSERVER_MAX_CONNECTIONS`): the most
    ///   client connections open at once, 1...1000000.
    /// - `http.header_timeout_ms` (int, default 10000; `--header-timeout-ms`, `LISTSERVER_HEADER_TIMEOUT_MS`): the
    ///   time a client has to send a whole request head, 100...3600000; then 408 and close.
    /// - `http.idle_timeout_ms` (int, default 60000; `--idle-timeout-ms`, `LISTSERVER_IDLE_TIMEOUT_MS`): the time an
    ///   idle keep-alive connection stays open, 100...3600000.
    /// - `http.write_timeout_ms` (int, default 30000; `--write-timeout-ms`, `LISTSERVER_WRITE_TIMEOUT_MS`): the time
    ///   a client may take to read a response before it is dropped, 100...3600000.
    /// - `items.count` (int, default 10000; `--item-count`, `LISTSERVER_ITEM_COUNT`): items in the list, 0...2^53.
    /// - `items.seed` (int, default 42; `--seed`, `LISTSERVER_SEED`): the generator's seed, 0...Int64.max.
    /// - `items.latency_ms` (int, default 0; `--page-latency-ms`, `LISTSERVER_PAGE_LATENCY_MS`): extra latency of
    ///   every list (`/items`) response in milliseconds, 0...600000.
    /// - `items.grow_every_ms` (int, default 0; `--grow-every-ms`, `LISTSERVER_GROW_EVERY_MS`): one new item joins
    ///   the list every this many milliseconds, 0...86400000; 0 means the list never grows.
    /// - `store.latency.distribution` (string, default `uniform`; `--latency-distribution`,
    ///   `LISTSERVER_LATENCY_DISTRIBUTION`): `uniform`, `fixed`, `lognormal` or `none` (any case); see ``LatencyKind``.
    /// - `store.latency.min_ms` (int, default 500; `--latency-min-ms`, `LISTSERVER_LATENCY_MIN_MS`): the shortest
    ///   `uniform` latency in milliseconds, 0...600000, at most `store.latency.max_ms` when the distribution is
    ///   `uniform` (and not checked otherwise: a distribution is not refused for another's unused bounds).
    /// - `store.latency.max_ms` (int, default 2000; `--latency-max-ms`, `LISTSERVER_LATENCY_MAX_MS`): the longest
    ///   `uniform` latency and the cap of `lognormal` draws in milliseconds, 0...600000.
    /// - `store.latency.fixed_ms` (int, default 1000; `--latency-fixed-ms`, `LISTSERVER_LATENCY_FIXED_MS`): the
    ///   `fixed` latency in milliseconds, 0...600000.
    /// - `store.latency.median_ms` (int, default 800; `--latency-median-ms`, `LISTSERVER_LATENCY_MEDIAN_MS`): the
    ///   `lognormal` median in milliseconds, 0...600000, at most `store.latency.max_ms` when the distribution is
    ///   `lognormal`.
    /// - `store.latency.spread` (double, default 0.5; `--latency-spread`, `LISTSERVER_LATENCY_SPREAD`): the sigma
    ///   of the `lognormal` latency's natural logarithm, 0...4.
    /// - `image.latency.distribution`, `.min_ms`, `.max_ms`, `.fixed_ms`, `.median_ms`, `.spread` (defaults
    ///   `uniform`, 500, 1500, 1000, 800, 0.5; `--image-latency-…`, `LISTSERVER_IMAGE_LATENCY_…`): the latency of
    ///   an image fetch, read and checked exactly like `store.latency.*`.
    /// - `image.cache_bytes` (int, default 67108864; `--image-cache-bytes`, `LISTSERVER_IMAGE_CACHE_BYTES`): the
    ///   encoded image bytes the image cache keeps, 0...2^40.
    /// - `image.workers` (int, default 2; `--image-workers`, `LISTSERVER_IMAGE_WORKERS`): threads that draw and
    ///   encode images, 0...256; 0 means one per active processor.
    /// - `picsum.enabled` (bool, default true; `--picsum`/`--no-picsum`, `LISTSERVER_PICSUM`): serve Lorem Picsum's
    ///   routes over the items.
    /// - `server.public_url` (string, default empty; `--public-url`, `LISTSERVER_PUBLIC_URL`): the base of the
    ///   absolute URLs the server writes (see ``PublicURL``); empty uses each request's `Host` field.
    /// - `image.queue_limit` (int, default 64; `--image-queue-limit`, `LISTSERVER_IMAGE_QUEUE_LIMIT`): the most
    ///   images waiting for a worker, 1...1000000; one more gets 503 with `Retry-After`.
    /// - `image.max_upload_bytes` (int, default 10485760; `--image-max-upload-bytes`,
    ///   `LISTSERVER_IMAGE_MAX_UPLOAD_BYTES`): the largest `Content-Length` of a `PUT /items/<id>/image`,
    ///   1...104857600 (the JSON body limit does not apply to it); a larger one gets 413.
    /// - `cache.capacity` (int, default 100000; `--cache-capacity`, `LISTSERVER_CACHE_CAPACITY`): item details the
    ///   cache holds, 1...10000000.
    /// - `paging.default_limit` (int, default 20; `--default-limit`, `LISTSERVER_DEFAULT_LIMIT`): the page size when a
    ///   request gives none, 1...`paging.max_limit`.
    /// - `paging.max_limit` (int, default 100; `--max-limit`, `LISTSERVER_MAX_LIMIT`): the largest page size a request
    ///   may ask for, 1...10000.
    /// - `data.path` (string, default `./data/listserver.sqlite`; `--data-path`, `LISTSERVER_DATA_PATH`): the SQLite
    ///   file where writes are kept, created with its folder; not empty; `:memory:` keeps them only while the server
    ///   runs.
    /// - `data.synchronous` (string, default `full`; `--data-synchronous`, `LISTSERVER_DATA_SYNCHRONOUS`): `full` (an
    ///   acknowledged write survives power loss) or `normal` (it survives a crash of the server process), any case;
    ///   see ``DataSynchronous``.
    /// - `data.url` (string, default empty; `--data-url`, `LISTSERVER_DATA_URL`): a PostgreSQL database
    ///   (`postgres://user:password@host:port/db?sslmode=…`, see ``PostgresURL``) that keeps the writes instead of
    ///   `data.path`, shared by every replica that names it; empty for SQLite. Secret: shown with its password
    ///   hidden, and not at all in error messages.
    /// - `data.pool_size` (int, default 4; `--data-pool-size`, `LISTSERVER_DATA_POOL_SIZE`): connections to that
    ///   database, 2...64 (one for the commits, the others for reads).
    /// - `data.idempotency_ttl_s` (int, default 86400; `--idempotency-ttl-s`, `LISTSERVER_IDEMPOTENCY_TTL_S`): how
    ///   long an `Idempotency-Key` and its first answer are kept, in seconds, 60...31536000.
    /// - `data.changes_kept` (int, default 100000; `--changes-kept`, `LISTSERVER_CHANGES_KEPT`): the recent changes
    ///   per dataset the change feed keeps for replay, 1...100000000.
    /// - `events.heartbeat_ms` (int, default 15000; `--heartbeat-ms`, `LISTSERVER_HEARTBEAT_MS`): the interval of
    ///   the comment line that keeps an idle event stream open, 100...3600000.
    /// - `events.max_wait_ms` (int, default 30000; `--max-wait-ms`, `LISTSERVER_MAX_WAIT_MS`): the longest `wait_ms`
    ///   a long-poll of `/items/changes` may ask for, 0...3600000.
    /// - `events.max_buffer_bytes` (int, default 1048576; `--event-buffer-bytes`, `LISTSERVER_EVENT_BUFFER_BYTES`):
    ///   the unsent bytes an event-stream subscriber may fall behind by before it is dropped, 4096...1073741824.
    /// - `delay.max_ms` (int, default 30000; `--max-delay-ms`, `LISTSERVER_MAX_DELAY_MS`): the largest `?delay_ms`
    ///   a request may ask for, 0...600000.
    /// - `faults.rate` (double, default 0; `--fault-rate`, `LISTSERVER_FAULT_RATE`): the share of data requests
    ///   (`/items…`) that get an injected fault, 0...1.
    /// - `faults.kinds` (string, default `500,503,429,reset,truncated,hang`; `--fault-kinds`,
    ///   `LISTSERVER_FAULT_KINDS`): the faults and their weights, as `FaultMix(parsing:)` reads them.
    /// - `faults.seed` (int, default 1; `--fault-seed`, `LISTSERVER_FAULT_SEED`): the seed of the fault draws,
    ///   0...Int64.max.
    /// - `faults.hang_ms` (int, default 10000; `--hang-ms`, `LISTSERVER_HANG_MS`): how long a `hang` fault holds a
    ///   request before the connection is closed, 1...600000.
    /// - `faults.retry_after_s` (int, default 1; `--retry-after-s`, `LISTSERVER_RETRY_AFTER_S`): the `Retry-After`
    ///   of injected 503 and 429 answers in seconds, 0...86400.
    /// - `admin.token` (string, default empty; `--admin-token`, `LISTSERVER_ADMIN_TOKEN`): the secret of the admin
    ///   endpoints, empty (loopback clients only) or 1...256 bytes in 0x21...0x7E; never printed (see ``AdminToken``).
    /// - `cors.allow_origin` (string, default `*`; `--cors-allow-origin`, `LISTSERVER_CORS_ALLOW_ORIGIN`): `*`, a
    ///   comma-separated list of `http(s)://host[:port]`, or empty for no CORS headers (see ``CORSOrigins``).
    /// - `shutdown.grace_ms` (int, default 8000; `--shutdown-grace-ms`, `LISTSERVER_SHUTDOWN_GRACE_MS`): the time
    ///   requests in flight get to finish after SIGTERM or SIGINT, 0...600000; what is left then gets 503.
    /// - `metrics.enabled` (bool, default true; `--metrics`/`--no-metrics`, `LISTSERVER_METRICS`): whether
    ///   `GET /metrics` serves Prometheus metrics and requests are measured.
    /// - `log.level` (string, default `info`; `--log-level`, `LISTSERVER_LOG_LEVEL`): the least severe level logged,
    ///   one of `trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical` (any case).
    /// - `log.format` (string, default `text`; `--log-format`, `LISTSERVER_LOG_FORMAT`): `text` for people, `json`
    ///   for one JSON object per line.
    /// - `log.access` (bool, default true; `--access-log`/`--no-access-log`, `LISTSERVER_ACCESS_LOG`): one `info`
    ///   line per answered request.
    ///
    /// Booleans are JSON `true`/`false` in the file and `true`/`false` (or `1`/`0`, `yes`/`no`) in the environment;
    /// on the command line each is a pair of flags. Doubles are JSON numbers in the file and decimals (`0.3`)
    /// elsewhere; not-a-number and infinities are refused.
    ///
    /// Why this composition: ArgumentParser parses the flags, not swift-configuration's `CommandLineArgumentsProvider`,
    /// because it gives an excellent `--help` (every flag with its meaning, range, default and variable), typed
    /// parsing with precise messages, and exit code 64 for unknown flags, where the provider accepts any `--key value`
    /// and cannot describe or reject one. swift-configuration then does what it is built for, the layering: the flags
    /// that were given become an `InMemoryProvider` on top; the environment is an `EnvironmentVariablesProvider`
    /// behind a `KeyMappingProvider` that maps each key to the variable of the table (the provider's own encoding
    /// would make `STORE_LATENCY_MIN_MS` of `store.latency.min_ms`); the file is an `InMemoryProvider` of the
    /// values ``ConfigurationFile`` parsed, checked for unknown keys and converted; and the defaults, taken from
    /// ``defaults``, are an `InMemoryProvider` at the bottom. Because the bottom layer has every key, each read is a
    /// `required…` read, which throws on a value of the wrong type; `int(forKey:default:)` would silently return the
    /// default instead.
    ///
    /// - Parameters:
    ///   - options: The parsed command line.
    ///   - environment: The process environment (`ProcessInfo.processInfo.environment`); only `LISTSERVER_*`
    ///     variables are read. An empty `LISTSERVER_CONFIG` counts as unset.
    ///   - activeProcessorCount: What `http.threads = 0` resolves to.
    /// - Returns: Settings whose every value is within its range, with ``configFile`` set when a file was read.
    /// - Throws: ``ConfigurationError`` for the first problem found, naming the key, the source and the value.
    static func load(
        options: CommandLineOptions,
        environment: [String: String],
        activeProcessorCount: Int = ProcessInfo.processInfo.activeProcessorCount
    ) async throws(ConfigurationError) -> Settings {
        let file = try await configurationFile(options: options, environment: environment)
        let secretKeys = SettingKey.allCases.filter(\.isSecret)  // marked for swift-configuration, too
        var layers: [(provider: any ConfigProvider, source: ConfigurationSource)] = [
            (InMemoryProvider(name: "command line", values: options.configValues), .commandLine),
            (
                KeyMappingProvider(
                    upstream: EnvironmentVariablesProvider(
                        environmentVariables: environment,
                        secretsSpecifier: .specific(Set(secretKeys.map(\.environmentVariable)))
                    ),
                    keyMapper: environmentVariableKey
                ), .environment
            ),
        ]
        if let file {
            layers.append((file.provider, .file(path: file.path)))
        }
        let defaultValues = Dictionary(
            uniqueKeysWithValues: SettingKey.allCases.map {
                ($0.absoluteKey, ConfigValue(defaults.content(of: $0), isSecret: $0.isSecret))
            }
        )
        layers.append((InMemoryProvider(name: "defaults", values: defaultValues), .builtInDefault))
        let reader = LayeredReader(layers: layers, environment: environment, file: file)

        let host = try reader.string(.host)
        guard HostAddress.isValid(host) else {
            throw .invalidValue(
                .host,
                from: reader.source(of: .host),
                value: #""\#(host)""#,
                requirement: SettingKey.host.requirement
            )
        }
        let threads = try reader.int(.threads)
        let imageWorkers = try reader.int(.imageWorkers)
        let settings = Settings(
            host: host,
            port: try reader.int(.port),
            threads: threads == 0 ? max(1, activeProcessorCount) : threads,
            itemCount: UInt64(try reader.int(.itemCount)),
            seed: UInt64(try reader.int(.seed)),
            pageLatencyMs: try reader.int(.pageLatencyMs),
            growEveryMs: try reader.int(.growEveryMs),
            latencyDistribution: try reader.choice(.latencyDistribution, of: LatencyKind.self),
            latencyMinMs: try reader.int(.latencyMinMs),
            latencyMaxMs: try reader.int(.latencyMaxMs),
            latencyFixedMs: try reader.int(.latencyFixedMs),
            latencyMedianMs: try reader.int(.latencyMedianMs),
            latencySpread: try reader.double(.latencySpread),
            cacheCapacity: try reader.int(.cacheCapacity),
            imageLatencyDistribution: try reader.choice(.imageLatencyDistribution, of: LatencyKind.self),
            imageLatencyMinMs: try reader.int(.imageLatencyMinMs),
            imageLatencyMaxMs: try reader.int(.imageLatencyMaxMs),
            imageLatencyFixedMs: try reader.int(.imageLatencyFixedMs),
            imageLatencyMedianMs: try reader.int(.imageLatencyMedianMs),
            imageLatencySpread: try reader.double(.imageLatencySpread),
            imageCacheBytes: try reader.int(.imageCacheBytes),
            imageWorkers: imageWorkers == 0 ? max(1, activeProcessorCount) : imageWorkers,
            imageQueueLimit: try reader.int(.imageQueueLimit),
            picsumEnabled: try reader.bool(.picsumEnabled),
            publicURL: try reader.parsed(.publicURL, PublicURL.init(parsing:)),
            paging: PagingSettings(defaultLimit: try reader.int(.defaultLimit), maxLimit: try reader.int(.maxLimit)),
            limits: try limits(reader),
            dataPath: try reader.string(.dataPath),
            dataSynchronous: try reader.choice(.dataSynchronous, of: DataSynchronous.self),
            dataURL: try reader.parsed(.dataURL, PostgresURL.setting(parsing:)),
            dataPoolSize: try reader.int(.dataPoolSize),
            idempotencyTTLSeconds: try reader.int(.idempotencyTTLSeconds),
            changesKept: try reader.int(.changesKept),
            maxDatasets: try reader.int(.maxDatasets),
            datasetTTLSeconds: try reader.int(.datasetTTLSeconds),
            maxDatasetBytes: try reader.int(.maxDatasetBytes),
            maxMemoryBytes: try reader.int(.maxMemoryBytes),
            heartbeatMs: try reader.int(.heartbeatMs),
            maxWaitMs: try reader.int(.maxWaitMs),
            eventBufferBytes: try reader.int(.eventBufferBytes),
            eventBufferedBytes: try reader.int(.eventBufferedBytes),
            maxDelayMs: try reader.int(.maxDelayMs),
            faultRate: try reader.double(.faultRate),
            faultKinds: try reader.parsed(.faultKinds, FaultMix.init(parsing:)),
            faultSeed: UInt64(try reader.int(.faultSeed)),
            hangMs: try reader.int(.hangMs),
            retryAfterSeconds: try reader.int(.retryAfterSeconds),
            adminToken: try reader.parsed(.adminToken, AdminToken.init(parsing:)),
            adminAllowedOrigins: try reader.parsed(.adminAllowedOrigins, CORSOrigins.init(parsing:)),
            corsAllowOrigin: try reader.parsed(.corsAllowOrigin, CORSOrigins.init(parsing:)),
            shutdownGrace: .milliseconds(try reader.int(.shutdownGraceMs)),
            metricsEnabled: try reader.bool(.metricsEnabled),
            logging: LoggingSettings(
                level: try reader.choice(.logLevel, of: Logger.Level.self),
                format: try reader.choice(.logFormat, of: LogFormat.self),
                accessLog: try reader.bool(.accessLog)),
            configFile: file?.path
        )
        guard !settings.dataPath.isEmpty else {
            throw .invalidValue(
                .dataPath,
                from: reader.source(of: .dataPath),
                value: #""""#,
                requirement: SettingKey.dataPath.requirement
            )
        }
        try requireLatencyOrder(
            settings.latencyDistribution, min: (.latencyMinMs, settings.latencyMinMs),
            median: (.latencyMedianMs, settings.latencyMedianMs), max: (.latencyMaxMs, settings.latencyMaxMs), reader)
        try requireLatencyOrder(
            settings.imageLatencyDistribution, min: (.imageLatencyMinMs, settings.imageLatencyMinMs),
            median: (.imageLatencyMedianMs, settings.imageLatencyMedianMs),
            max: (.imageLatencyMaxMs, settings.imageLatencyMaxMs), reader)
        try requireAtMost(.defaultLimit, settings.paging.defaultLimit, .maxLimit, settings.paging.maxLimit, reader)
        try requireAtMost(.maxDatasetBytes, settings.maxDatasetBytes, .maxMemoryBytes, settings.maxMemoryBytes, reader)
        try requireAtMost(
            .maxRequestLineBytes, settings.limits.maxRequestLineBytes,
            .maxHeaderBytes, settings.limits.maxHeaderBytes, reader)
        return settings
    }

    /// The relations a latency distribution's keys must keep: `min_ms <= max_ms` for `uniform`, `median_ms <=
    /// max_ms` for `lognormal`; `fixed` and `none` use neither (`store.latency.*` and `image.latency.*` alike).
    private static func requireLatencyOrder(
        _ kind: LatencyKind, min: (SettingKey, Int), median: (SettingKey, Int), max: (SettingKey, Int),
        _ reader: LayeredReader
    ) throws(ConfigurationError) {
        switch kind {
        case .uniform: try requireAtMost(min.0, min.1, max.0, max.1, reader)
        case .lognormal: try requireAtMost(median.0, median.1, max.0, max.1, reader)
        case .fixed, .none: break
        }
    }

    /// Reads the `http.max_*` and `http.*_timeout_ms` keys, each checked against its range only.
    private static func limits(_ reader: LayeredReader) throws(ConfigurationError) -> HTTPLimits {
        HTTPLimits(
            maxRequestLineBytes: try reader.int(.maxRequestLineBytes),
            maxHeaderBytes: try reader.int(.maxHeaderBytes),
            maxHeaderCount: try reader.int(.maxHeaderCount),
            maxBodyBytes: try reader.int(.maxBodyBytes),
            maxUploadBytes: try reader.int(.imageMaxUploadBytes),
            maxConnections: try reader.int(.maxConnections),
            headerTimeout: .milliseconds(try reader.int(.headerTimeoutMs)),
            idleTimeout: .milliseconds(try reader.int(.idleTimeoutMs)),
            writeTimeout: .milliseconds(try reader.int(.writeTimeoutMs)),
            bodyTimeout: .milliseconds(try reader.int(.bodyTimeoutMs)),
            minBodyRate: try reader.int(.minBodyRate),
            reservedConnections: try reader.int(.reservedConnections),
            maxOutputBytes: try reader.int(.maxOutputBytes)
        )
    }

    /// Reads the file named by `--config`, or else by `LISTSERVER_CONFIG`; `nil` when neither names one.
    private static func configurationFile(
        options: CommandLineOptions,
        environment: [String: String]
    ) async throws(ConfigurationError) -> ConfigurationFile? {
        if let path = options.config {
            return try await ConfigurationFile(path: path, namedBy: SettingKey.configFileFlag)
        }
        if let path = environment[SettingKey.configFileVariable], !path.isEmpty {
            return try await ConfigurationFile(path: path, namedBy: SettingKey.configFileVariable)
        }
        return nil
    }

    /// Maps a config key to its `LISTSERVER_*` variable; the encoder keeps such a one-component key as it is.
    @Sendable
    private static func environmentVariableKey(_ key: AbsoluteConfigKey) -> AbsoluteConfigKey {
        guard let setting = SettingKey(rawValue: key.components.joined(separator: ".")) else {
            return AbsoluteConfigKey(["listserver"] + key.components)  // not a setting: nothing reads it
        }
        return AbsoluteConfigKey([setting.environmentVariable])
    }

    /// Throws unless `value` (of `key`) is at most `limit` (of `limitKey`):
    /// `store.latency.min_ms (--latency-min-ms) = 3000 must be <= store.latency.max_ms (2000)`.
    private static func requireAtMost(
        _ key: SettingKey,
        _ value: Int,
        _ limitKey: SettingKey,
        _ limit: Int,
        _ reader: LayeredReader
    ) throws(ConfigurationError) {
        guard value <= limit else {
            throw .invalidValue(
                key,
                from: reader.source(of: key),
                value: String(value),
                requirement: "<= \(limitKey.name) (\(limit))"
            )
        }
    }
}
