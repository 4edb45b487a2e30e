/// How the change feed is served: `events.*`.
package struct EventSettings: Sendable, Equatable {
    /// The interval of the `:` comment that keeps an idle event stream open (``SettingKey/heartbeatMs``).
    package var heartbeat: Duration = .seconds(15)
    /// The longest `wait_ms` a long-poll may ask for (``SettingKey/maxWaitMs``).
    package var maxWait: Duration = .seconds(30)
    /// The unsent bytes a subscriber may fall behind by before it is dropped (``SettingKey/eventBufferBytes``).
    package var maxBufferBytes = 256 << 10
    /// The unsent bytes all subscribers together may hold (``SettingKey/eventBufferedBytes``), shared evenly by the
    /// event loops; past a loop's share, its subscribers furthest behind are dropped first.
    package var maxBufferedBytes = 64 << 20
    /// The `retry:` a stream starts with: how long a browser waits before it reconnects.
    package var retry: Duration = .seconds(2)

    package init() {}
}
