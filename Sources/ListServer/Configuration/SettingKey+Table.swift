/// The configuration table: for each ``SettingKey``, its flag, environment variable, integer range, `--help`
/// placeholder and meaning. The one place these are written: `--help`, the environment mapping, the range checks of
/// loading and the README's configuration table (checked by `ConfigurationDocumentationTests`) come from it.
extension SettingKey {
    /// One row of the configuration table: flag without dashes, environment variable, integer range, the value's
    /// placeholder in `--help`, and the one-sentence meaning.
    typealias Row = (flag: String, environment: String, bounds: ClosedRange<Int>?, valueName: String, meaning: String)

    /// The row of the table for this key.
    var row: Row {
        switch self {
        case .host:
            ("host", "LISTSERVER_HOST", nil, "address", "Address to listen on.")
        case .port:
            ("port", "LISTSERVER_PORT", 0...65_535, "port", "TCP port to listen on; 0 picks any free port.")
        case .threads:
            ("threads", "LISTSERVER_THREADS", 0...256, "n", "Event-loop threads; 0 means one per active processor.")
        case .maxRequestLineBytes:
            (
                "max-request-line-bytes", "LISTSERVER_MAX_REQUEST_LINE_BYTES", 64...1_048_576, "bytes",
                "Longest request line; a longer one gets 414."
            )
        case .maxHeaderBytes:
            (
                "max-header-bytes", "LISTSERVER_MAX_HEADER_BYTES", 256...1_048_576, "bytes",
                "Longest request head (request line, header lines, line endings); a longer one gets 431."
            )
        case .maxHeaderCount:
            (
                "max-header-count", "LISTSERVER_MAX_HEADER_COUNT", 1...1000, "n",
                "Most header fields in a request; more get 431."
            )
        case .maxBodyBytes:
            (
                "max-body-bytes", "LISTSERVER_MAX_BODY_BYTES", 0...16_777_216, "bytes",
                "Largest Content-Length accepted; a larger one gets 413."
            )
        case .maxConnections:
            (
                "max-connections", "LISTSERVER_MAX_CONNECTIONS", 1...1_000_000, "n",
                "Most client connections open at once."
            )
        case .headerTimeoutMs:
            (
                "header-timeout-ms", "LISTSERVER_HEADER_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time a client has to send a whole request head; then 408 and close."
            )
        case .idleTimeoutMs:
            (
                "idle-timeout-ms", "LISTSERVER_IDLE_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time an idle keep-alive connection stays open."
            )
        case .writeTimeoutMs:
            (
                "write-timeout-ms", "LISTSERVER_WRITE_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time a client may take to read a response before it is dropped."
            )
        case .bodyTimeoutMs:
            (
                "body-timeout-ms", "LISTSERVER_BODY_TIMEOUT_MS", 100...3_600_000, "ms",
                "Time a client has to send a whole request body after its head; then 408 and close."
            )
        case .minBodyRate:
            (
                "min-body-rate", "LISTSERVER_MIN_BODY_RATE", 0...1_073_741_824, "bytes/s",
                "Slowest a request body may arrive after its first second, on average since its head; slower gets 408 "
                    + "and close (0: no minimum)."
            )
        case .reservedConnections:
            (
                "reserved-connections", "LISTSERVER_RESERVED_CONNECTIONS", 0...10_000, "n",
                "Connections beyond http.max_connections kept for /healthz, /readyz, /metrics and /admin/*; any other "
                    + "request on one gets 503."
            )
        case .maxOutputBytes:
            (
                "max-output-bytes", "LISTSERVER_MAX_OUTPUT_BYTES", 1_048_576...17_179_869_184, "bytes",
                "Answer bytes the clients have not read yet, all connections together; past it the connection "
                    + "furthest behind is closed."
            )
        case .itemCount:
            ("item-count", "LISTSERVER_ITEM_COUNT", 0...(1 << 53), "n", "Number of items in the list.")
        case .seed:
            ("seed", "LISTSERVER_SEED", 0...Int(Int64.max), "n", "Seed of the deterministic item generator.")
        case .latencyMinMs:
            ("latency-min-ms", "LISTSERVER_LATENCY_MIN_MS", 0...600_000, "ms", "Shortest simulated store latency.")
        case .latencyMaxMs:
            ("latency-max-ms", "LISTSERVER_LATENCY_MAX_MS", 0...600_000, "ms", "Longest simulated store latency.")
        case .cacheCapacity:
            ("cache-capacity", "LISTSERVER_CACHE_CAPACITY", 1...10_000_000, "n", "Item details the cache holds.")
        case .defaultLimit:
            ("default-limit", "LISTSERVER_DEFAULT_LIMIT", 1...10_000, "n", "Page size when a request gives no limit.")
        case .maxLimit:
            ("max-limit", "LISTSERVER_MAX_LIMIT", 1...10_000, "n", "Largest page size a request may ask for.")
        case .dataPath:
            (
                "data-path", "LISTSERVER_DATA_PATH", nil, "path",
                "SQLite file where writes are kept (created with its folder); :memory: keeps them only while the "
                    + "server runs."
            )
        case .dataSynchronous:
            (
                "data-synchronous", "LISTSERVER_DATA_SYNCHRONOUS", nil, "mode",
                "full: an acknowledged write survives power loss; normal: it survives a crash of the server process."
            )
        case .dataURL:
            (
                "data-url", "LISTSERVER_DATA_URL", nil, "url",
                "PostgreSQL database where writes are kept instead of data.path (shared by replicas); empty: SQLite."
            )
        case .dataPoolSize:
            (
                "data-pool-size", "LISTSERVER_DATA_POOL_SIZE", 2...64, "n",
                "Connections to the PostgreSQL store (data.url), each on a thread of its own: one writer, the rest "
                    + "read."
            )
        case .idempotencyTTLSeconds:
            (
                "idempotency-ttl-s", "LISTSERVER_IDEMPOTENCY_TTL_S", 60...31_536_000, "s",
                "How long an Idempotency-Key and its first answer are kept."
            )
        case .changesKept:
            (
                "changes-kept", "LISTSERVER_CHANGES_KEPT", 1...100_000_000, "n",
                "How many recent changes per dataset the change feed keeps for replay."
            )
        case .maxDatasets:
            (
                "max-datasets", "LISTSERVER_MAX_DATASETS", 1...1_000_000, "n",
                "Most datasets (X-Dataset names with writes) kept at once; a write that would make one more gets 507."
            )
        case .datasetTTLSeconds:
            (
                "dataset-ttl-s", "LISTSERVER_DATASET_TTL_S", 0...315_360_000, "s",
                "A dataset nobody used for this long is removed with everything written to it (0: never)."
            )
        case .maxDatasetBytes:
            (
                "max-dataset-bytes", "LISTSERVER_MAX_DATASET_BYTES", 65_536...1_099_511_627_776, "bytes",
                "Memory one list's writes may take, both copies counted; a create, patch or upload past it gets 507."
            )
        case .maxMemoryBytes:
            (
                "max-memory-bytes", "LISTSERVER_MAX_MEMORY_BYTES", 1_048_576...1_099_511_627_776, "bytes",
                "Memory the lists in memory may take; past it the least recently used datasets leave memory."
            )
        case .heartbeatMs:
            (
                "heartbeat-ms", "LISTSERVER_HEARTBEAT_MS", 100...3_600_000, "ms",
                "Interval of the comment line that keeps an idle event stream open."
            )
        case .maxWaitMs:
            (
                "max-wait-ms", "LISTSERVER_MAX_WAIT_MS", 0...3_600_000, "ms",
                "Longest wait_ms a long-poll of /items/changes may ask for."
            )
        case .eventBufferBytes:
            (
                "event-buffer-bytes", "LISTSERVER_EVENT_BUFFER_BYTES", 4_096...1_073_741_824, "bytes",
                "Unsent bytes an event-stream subscriber may fall behind by before it is dropped."
            )
        case .eventBufferedBytes:
            (
                "event-buffered-bytes", "LISTSERVER_EVENT_BUFFERED_BYTES", 65_536...17_179_869_184, "bytes",
                "Unsent event-stream bytes all subscribers together may hold; past it the slowest are dropped first."
            )
        case .journalCapacity:
            (
                "journal-capacity", "LISTSERVER_JOURNAL_CAPACITY", 0...1_000_000, "n",
                "Requests the journal keeps per dataset (GET /admin/journal), the oldest going first; 0 keeps none."
            )
        case .journalMaxBytes:
            (
                "journal-max-bytes", "LISTSERVER_JOURNAL_MAX_BYTES", 1_048_576...17_179_869_184, "bytes",
                "Memory every dataset's journal together may take; past it the least recently used lose entries."
            )
        case .journalMaxInFlightHint:
            (
                "journal-max-in-flight-hint", "LISTSERVER_JOURNAL_MAX_IN_FLIGHT_HINT", 1...100_000, "n",
                "Details or images one client may have in flight at once before the report card says overfetch."
            )
        case .chatConversations:
            (
                "chat-conversations", "LISTSERVER_CHAT_CONVERSATIONS", 0...100_000, "n",
                "Conversations each dataset has (GET /conversations)."
            )
        case .chatMessagesPerConversation:
            (
                "chat-messages-per-conversation", "LISTSERVER_CHAT_MESSAGES_PER_CONVERSATION", 1...(1 << 40), "n",
                "Messages of the longest conversation (conversation 0; others have it, a half or a quarter)."
            )
        case .shutdownGraceMs:
            (
                "shutdown-grace-ms", "LISTSERVER_SHUTDOWN_GRACE_MS", 0...600_000, "ms",
                "Time requests in flight get to finish after SIGTERM/SIGINT; what is left then gets 503."
            )
        case .metricsEnabled:
            ("metrics", "LISTSERVER_METRICS", nil, "bool", "Serve Prometheus metrics at GET /metrics.")
        case .logLevel:
            (
                "log-level", "LISTSERVER_LOG_LEVEL", nil, "level",
                "Least severe log level written; access lines are info."
            )
        case .logFormat:
            (
                "log-format", "LISTSERVER_LOG_FORMAT", nil, "format",
                "Log lines as text (for people) or json (one object per line, for log collectors)."
            )
        case .accessLog:
            (
                "access-log", "LISTSERVER_ACCESS_LOG", nil, "bool",
                "One log line per request: method, path, status, bytes, duration, cache result."
            )
        case .pageLatencyMs:
            (
                "page-latency-ms", "LISTSERVER_PAGE_LATENCY_MS", 0...600_000, "ms",
                "Extra latency of every list (/items) response."
            )
        case .growEveryMs:
            (
                "grow-every-ms", "LISTSERVER_GROW_EVERY_MS", 0...86_400_000, "ms",
                "Interval at which one new item joins the list; 0 means the list never grows."
            )
        case .latencyDistribution:
            (
                "latency-distribution", "LISTSERVER_LATENCY_DISTRIBUTION", nil, "kind",
                "Shape of the simulated store latency: uniform between min and max, fixed, lognormal, or none at all."
            )
        case .latencyFixedMs:
            (
                "latency-fixed-ms", "LISTSERVER_LATENCY_FIXED_MS", 0...600_000, "ms",
                "Store latency of the fixed distribution."
            )
        case .latencyMedianMs:
            (
                "latency-median-ms", "LISTSERVER_LATENCY_MEDIAN_MS", 0...600_000, "ms",
                "Median store latency of the lognormal distribution, whose draws are capped at the longest latency."
            )
        case .latencySpread:
            (
                "latency-spread", "LISTSERVER_LATENCY_SPREAD", nil, "sigma",
                "Spread of the lognormal distribution: the standard deviation of the latency's natural logarithm."
            )
        case .imageLatencyDistribution:
            (
                "image-latency-distribution", "LISTSERVER_IMAGE_LATENCY_DISTRIBUTION", nil, "kind",
                "Shape of the simulated store latency of an image fetch: uniform, fixed, lognormal or none."
            )
        case .imageLatencyMinMs:
            (
                "image-latency-min-ms", "LISTSERVER_IMAGE_LATENCY_MIN_MS", 0...600_000, "ms",
                "Shortest simulated image fetch latency."
            )
        case .imageLatencyMaxMs:
            (
                "image-latency-max-ms", "LISTSERVER_IMAGE_LATENCY_MAX_MS", 0...600_000, "ms",
                "Longest simulated image fetch latency."
            )
        case .imageLatencyFixedMs:
            (
                "image-latency-fixed-ms", "LISTSERVER_IMAGE_LATENCY_FIXED_MS", 0...600_000, "ms",
                "Image fetch latency of the fixed distribution."
            )
        case .imageLatencyMedianMs:
            (
                "image-latency-median-ms", "LISTSERVER_IMAGE_LATENCY_MEDIAN_MS", 0...600_000, "ms",
                "Median image fetch latency of the lognormal distribution, capped at the longest latency."
            )
        case .imageLatencySpread:
            (
                "image-latency-spread", "LISTSERVER_IMAGE_LATENCY_SPREAD", nil, "sigma",
                "Spread of the lognormal image fetch latency (standard deviation of its natural logarithm)."
            )
        case .imageCacheBytes:
            (
                "image-cache-bytes", "LISTSERVER_IMAGE_CACHE_BYTES", 0...(1 << 40), "bytes",
                "Encoded image bytes the image cache keeps; 0 keeps none."
            )
        case .imageWorkers:
            (
                "image-workers", "LISTSERVER_IMAGE_WORKERS", 0...256, "n",
                "Threads that draw and encode images; 0 means one per active processor."
            )
        case .imageProgressive:
            (
                "image-progressive", "LISTSERVER_IMAGE_PROGRESSIVE", nil, "bool",
                "Serve generated JPEGs progressive (coarse scans first) unless a request says ?progressive=0."
            )
        case .picsumEnabled:
            (
                "picsum", "LISTSERVER_PICSUM", nil, "bool",
                "Serve Lorem Picsum's routes (/v2/list, /id/..., /seed/..., /<w>/<h>) over the items."
            )
        case .publicURL:
            (
                "public-url", "LISTSERVER_PUBLIC_URL", nil, "url",
                "Base of the absolute URLs the server writes; empty: the request's Host field."
            )
        case .imageQueueLimit:
            (
                "image-queue-limit", "LISTSERVER_IMAGE_QUEUE_LIMIT", 1...1_000_000, "n",
                "Most images waiting for a worker; more get 503 with Retry-After."
            )
        case .imageMaxUploadBytes:
            (
                "image-max-upload-bytes", "LISTSERVER_IMAGE_MAX_UPLOAD_BYTES", 1...104_857_600, "bytes",
                "Largest image a PUT /items/<id>/image may send; a larger one gets 413."
            )
        case .maxDelayMs:
            ("max-delay-ms", "LISTSERVER_MAX_DELAY_MS", 0...600_000, "ms", "Largest ?delay_ms a request may ask for.")
        case .faultRate:
            (
                "fault-rate", "LISTSERVER_FAULT_RATE", nil, "share",
                "Share of data requests (/items…) that get an injected fault."
            )
        case .faultKinds:
            (
                "fault-kinds", "LISTSERVER_FAULT_KINDS", nil, "mix",
                "Faults to inject, each with an optional relative weight in 1...1000, such as 503:3,500,reset."
            )
        case .faultSeed:
            ("fault-seed", "LISTSERVER_FAULT_SEED", 0...Int(Int64.max), "n", "Seed of the fault draws.")
        case .hangMs:
            (
                "hang-ms", "LISTSERVER_HANG_MS", 1...600_000, "ms",
                "Time a hang fault holds a request before closing the connection."
            )
        case .retryAfterSeconds:
            (
                "retry-after-s", "LISTSERVER_RETRY_AFTER_S", 0...86_400, "s",
                "Retry-After, in seconds, of injected 503 and 429 answers."
            )
        case .adminToken:
            (
                "admin-token", "LISTSERVER_ADMIN_TOKEN", nil, "token",
                "Secret the admin endpoints require; when empty they accept loopback clients only."
            )
        case .corsAllowOrigin:
            (
                "cors-allow-origin", "LISTSERVER_CORS_ALLOW_ORIGIN", nil, "origins",
                "Origins allowed to read answers in a browser (CORS); empty sends no CORS headers at all."
            )
        case .adminAllowedOrigins:
            (
                "admin-allowed-origins", "LISTSERVER_ADMIN_ALLOWED_ORIGINS", nil, "origins",
                "Web origins besides the server's own whose pages may call the admin endpoints; * for any."
            )
        }
    }
}
