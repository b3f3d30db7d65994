import CDBus
import Dispatch
import Synchronization

/// The event loop every D-Bus connection of the process shares: one serial dispatch queue.
///
/// libdbus hands each connection's socket to us as *watches* (`dbus_connection_set_watch_functions`);
/// each watch becomes a dispatch source on this queue (epoll underneath), so no connection has a
/// thread of its own and nothing polls. Every libdbus call on a connection runs on this queue.
enum DBusEventLoop {
    static let queue = DispatchQueue(label: "castor.mpris.dbus")

    /// `dbus_threads_init_default`, once: connections are created from any task.
    static let threadsReady: Bool = dbus_threads_init_default() != 0
}

/// Where a connection goes.
enum DBusBusAddress: Sendable, Hashable {
    /// The session bus of the user's login session (`DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`, as libdbus looks it up).
    case session
    /// A bus at an explicit address (`unix:path=…`), registered with `Hello` like the session bus.
    case address(String)
}

/// A failure talking to the bus (connecting, owning a name).
struct DBusBusError: Error, Sendable, CustomStringConvertible {
    var name: String
    var message: String
    var description: String { "\(name): \(message)" }
}

/// One private connection to a message bus. Every handle it holds is freed when it is closed or goes away.
///
/// The libdbus side (`Core`) is confined to ``DBusEventLoop/queue``; this object is the owner the
/// rest of the module holds and may be used from any task.
final class DBusBusConnection: Sendable {
    private let core: Core

    /// The connection's unique name on the bus (`:1.42`).
    let uniqueName: String

    private init(core: Core, uniqueName: String) {
        self.core = core
        self.uniqueName = uniqueName
    }

    deinit {
        let core = core
        DBusEventLoop.queue.async { core.shutdown() }
    }

    /// Connects and registers on the bus (`Hello`), then hands the socket to the event loop.
    ///
    /// - Parameters:
    ///   - clock: the clock libdbus's timeouts run on.
    ///   - maxMessageSize: the largest message accepted from the bus; a larger one drops the connection.
    static func connect(to address: DBusBusAddress, clock: any Clock<Duration>, maxMessageSize: Int = 1 << 20)
        async throws(DBusBusError) -> DBusBusConnection
    {
        guard DBusEventLoop.threadsReady else { throw DBusBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: "dbus_threads_init_default failed") }
        let result: Result<DBusBusConnection, DBusBusError> = await withCheckedContinuation { continuation in
            DBusEventLoop.queue.async {
                continuation.resume(returning: Result { () throws(DBusBusError) in
                    let pointer = try openAndRegister(address)
                    dbus_connection_set_exit_on_disconnect(pointer, 0)
                    dbus_connection_set_max_message_size(pointer, Int(maxMessageSize))
                    dbus_connection_set_max_received_size(pointer, Int(maxMessageSize) * 4)
                    let unique = dbus_bus_get_unique_name(pointer).map { String(cString: $0) } ?? ""
                    let core = Core(connection: pointer, clock: clock)
                    core.attach()
                    return DBusBusConnection(core: core, uniqueName: unique)
                })
            }
        }
        return try result.get()
    }

    private static func openAndRegister(_ address: DBusBusAddress) throws(DBusBusError) -> OpaquePointer {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        switch address {
        case .session:
            guard let pointer = dbus_bus_get_private(DBUS_BUS_SESSION, &error) else { throw DBusBusError(error) }
            return pointer
        case .address(let text):
            guard let pointer = dbus_connection_open_private(text, &error) else { throw DBusBusError(error) }
            guard dbus_bus_register(pointer, &error) != 0 else {
                dbus_connection_close(pointer)
                dbus_connection_unref(pointer)
                throw DBusBusError(error)
            }
            return pointer
        }
    }

    /// Asks the bus for a well-known name, without queueing behind another owner.
    /// - Throws: ``DBusBusError`` when another connection owns it or the bus refuses.
    func requestName(_ name: String) async throws(DBusBusError) {
        let core = core
        let result: Result<Void, DBusBusError> = await withCheckedContinuation { continuation in
            DBusEventLoop.queue.async {
                continuation.resume(returning: Result { () throws(DBusBusError) in try core.requestName(name) })
            }
        }
        try result.get()
    }

    /// Gives a well-known name back to the bus.
    func releaseName(_ name: String) async {
        let core = core
        await withCheckedContinuation { continuation in
            DBusEventLoop.queue.async {
                core.releaseName(name)
                continuation.resume()
            }
        }
    }

    /// Serves method calls to `path`: `handler` runs on the event loop with each call and returns
    /// whether it handled it (libdbus answers the others with `UnknownMethod`). Parent paths are
    /// introspectable by libdbus itself.
    func register(path: String, handler: @escaping @Sendable (DBusMessage) -> Bool) async throws(DBusBusError) {
        let core = core
        let result: Result<Void, DBusBusError> = await withCheckedContinuation { continuation in
            DBusEventLoop.queue.async {
                continuation.resume(returning: Result { () throws(DBusBusError) in try core.register(path: path, handler: handler) })
            }
        }
        try result.get()
    }

    /// Called once, on the event loop, when the bus drops the connection.
    func onDisconnect(_ action: @escaping @Sendable () -> Void) {
        let core = core
        DBusEventLoop.queue.async { core.disconnectAction = action }
    }

    /// Queues a message; the event loop writes it when the socket is writable.
    func send(_ message: DBusMessage) {
        let core = core
        DBusEventLoop.queue.async { core.send(message) }
    }

    /// Flushes what is queued, closes the connection and frees every handle. Idempotent.
    func close() async {
        let core = core
        await withCheckedContinuation { continuation in
            DBusEventLoop.queue.async {
                core.shutdown()
                continuation.resume()
            }
        }
    }

    /// The number of live watches and timeouts (for tests: both are zero after ``close()``).
    var handleCounts: (watches: Int, timeouts: Int) {
        get async {
            let core = core
            return await withCheckedContinuation { continuation in
                DBusEventLoop.queue.async { continuation.resume(returning: (core.watches.count, core.timeouts.count)) }
            }
        }
    }
}

extension DBusBusError {
    init(_ error: DBusError) {
        name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        message = error.message.map { String(cString: $0) } ?? "unknown D-Bus error"
    }
}

// MARK: The libdbus side

/// The part of a connection libdbus calls back into. Confined to ``DBusEventLoop/queue``; libdbus
/// holds retained references (released through its free functions) while callbacks are installed.
private final class Core: @unchecked Sendable {
    let connection: OpaquePointer
    let clock: any Clock<Duration>
    var watches: [OpaquePointer: WatchSource] = [:]
    var timeouts: [OpaquePointer: Task<Void, Never>] = [:]
    var handlers: [String: @Sendable (DBusMessage) -> Bool] = [:]
    var disconnectAction: (@Sendable () -> Void)?
    var open = true
    var dispatchScheduled = false

    init(connection: OpaquePointer, clock: any Clock<Duration>) {
        self.connection = connection
        self.clock = clock
    }

    private func retained() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    private static func from(_ data: UnsafeMutableRawPointer?) -> Core? {
        data.map { Unmanaged<Core>.fromOpaque($0).takeUnretainedValue() }
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        if let data { Unmanaged<Core>.fromOpaque(data).release() }
    }

    /// Installs the watch, timeout, dispatch-status and filter callbacks.
    func attach() {
        dbus_connection_set_watch_functions(
            connection,
            { watch, data in
                guard let watch, let core = Core.from(data) else { return 0 }
                core.addWatch(watch)
                return 1
            },
            { watch, data in
                guard let watch, let core = Core.from(data) else { return }
                core.removeWatch(watch)
            },
            { watch, data in
                guard let watch, let core = Core.from(data) else { return }
                core.toggleWatch(watch)
            },
            retained(), Core.release)
        dbus_connection_set_timeout_functions(
            connection,
            { timeout, data in
                guard let timeout, let core = Core.from(data) else { return 0 }
                core.addTimeout(timeout)
                return 1
            },
            { timeout, data in
                guard let timeout, let core = Core.from(data) else { return }
                core.removeTimeout(timeout)
            },
            { timeout, data in
                guard let timeout, let core = Core.from(data) else { return }
                core.removeTimeout(timeout)
                core.addTimeout(timeout)
            },
            retained(), Core.release)
        dbus_connection_set_dispatch_status_function(
            connection,
            { _, status, data in
                guard status == DBUS_DISPATCH_DATA_REMAINS, let core = Core.from(data) else { return }
                core.scheduleDispatch()
            },
            retained(), Core.release)
        dbus_connection_set_wakeup_main_function(
            connection,
            { data in Core.from(data)?.scheduleDispatch() },
            retained(), Core.release)
        dbus_connection_add_filter(
            connection,
            { _, message, data in
                guard let message, let core = Core.from(data) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                if dbus_message_is_signal(message, "org.freedesktop.DBus.Local", "Disconnected") != 0 {
                    core.disconnected()
                    return DBUS_HANDLER_RESULT_HANDLED
                }
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            },
            retained(), Core.release)
        scheduleDispatch()
    }

    // MARK: Watches

    func addWatch(_ watch: OpaquePointer) {
        let descriptor = dbus_watch_get_unix_fd(watch)
        guard descriptor >= 0 else { return }
        let flags = dbus_watch_get_flags(watch)
        let source = WatchSource(descriptor: descriptor, readable: flags & DBUS_WATCH_READABLE.rawValue != 0) { [unowned self] in
            self.handle(watch)
        }
        watches[watch] = source
        source.setEnabled(dbus_watch_get_enabled(watch) != 0)
    }

    func removeWatch(_ watch: OpaquePointer) {
        watches.removeValue(forKey: watch)?.cancel()
    }

    func toggleWatch(_ watch: OpaquePointer) {
        watches[watch]?.setEnabled(dbus_watch_get_enabled(watch) != 0)
    }

    private func handle(_ watch: OpaquePointer) {
        guard open, let source = watches[watch] else { return }
        dbus_watch_handle(watch, source.readable ? DBUS_WATCH_READABLE.rawValue : DBUS_WATCH_WRITABLE.rawValue)
        dispatchPending()
    }

    // MARK: Timeouts (on the injected clock)

    func addTimeout(_ timeout: OpaquePointer) {
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = Duration.milliseconds(Int64(dbus_timeout_get_interval(timeout)))
        let clock = clock
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(timeout)))
        timeouts[timeout] = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                guard let core = self else { return }
                DBusEventLoop.queue.async {
                    guard let pointer = OpaquePointer(bitPattern: address), core.open, core.timeouts[pointer] != nil else { return }
                    dbus_timeout_handle(pointer)
                    core.dispatchPending()
                }
            }
        }
    }

    func removeTimeout(_ timeout: OpaquePointer) {
        timeouts.removeValue(forKey: timeout)?.cancel()
    }

    // MARK: Dispatching

    func scheduleDispatch() {
        guard !dispatchScheduled else { return }
        dispatchScheduled = true
        DBusEventLoop.queue.async { [self] in
            dispatchScheduled = false
            dispatchPending()
        }
    }

    /// Dispatches queued messages, at most 64 per turn so other connections get theirs.
    func dispatchPending() {
        guard open else { return }
        var rounds = 0
        while dbus_connection_get_dispatch_status(connection) == DBUS_DISPATCH_DATA_REMAINS {
            rounds += 1
            if rounds > 64 {
                scheduleDispatch()
                return
            }
            dbus_connection_dispatch(connection)
            guard open else { return }
        }
    }

    func send(_ message: DBusMessage) {
        guard open else { return }
        dbus_connection_send(connection, message.pointer, nil)
    }

    private func disconnected() {
        let action = disconnectAction
        disconnectAction = nil
        action?()
    }

    // MARK: Names and objects (blocking round trips to the bus, on the event loop)

    func requestName(_ name: String) throws(DBusBusError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let reply = dbus_bus_request_name(connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
        if dbus_error_is_set(&error) != 0 { throw DBusBusError(error) }
        guard reply == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || reply == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER else {
            throw DBusBusError(name: "org.freedesktop.DBus.Error.AddressInUse", message: "\(name) is owned by another connection")
        }
    }

    func releaseName(_ name: String) {
        guard open else { return }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        _ = dbus_bus_release_name(connection, name, &error)
    }

    func register(path: String, handler: @escaping @Sendable (DBusMessage) -> Bool) throws(DBusBusError) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        var vtable = DBusObjectPathVTable()
        vtable.unregister_function = { _, data in Core.release(data) }
        vtable.message_function = { _, message, data in
            guard let message, let core = Core.from(data), core.open else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let path = dbus_message_get_path(message).map { String(cString: $0) } ?? ""
            guard let handler = core.handlers[path] else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return handler(DBusMessage(retaining: message)) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        handlers[path] = handler
        let data = retained()
        guard dbus_connection_try_register_object_path(connection, path, &vtable, data, &error) != 0 else {
            Core.release(data)
            handlers[path] = nil
            throw DBusBusError(error)
        }
    }

    /// Unregisters objects, flushes, closes, removes every callback (freeing the watches and timeouts)
    /// and drops the connection's last reference.
    func shutdown() {
        guard open else { return }
        for path in handlers.keys { dbus_connection_unregister_object_path(connection, path) }
        handlers = [:]
        if dbus_connection_get_is_connected(connection) != 0 { dbus_connection_flush(connection) }
        open = false
        disconnectAction = nil
        dbus_connection_close(connection)
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        for source in watches.values { source.cancel() }
        watches = [:]
        for task in timeouts.values { task.cancel() }
        timeouts = [:]
        dbus_connection_unref(connection)
    }
}

/// A dispatch source on one watch's descriptor: readable or writable, enabled or not.
private final class WatchSource {
    let readable: Bool
    private let source: any DispatchSourceProtocol
    private var suspended = true
    private var cancelled = false

    init(descriptor: Int32, readable: Bool, handler: @escaping () -> Void) {
        self.readable = readable
        source = readable
            ? DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DBusEventLoop.queue)
            : DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: DBusEventLoop.queue)
        source.setEventHandler(handler: handler)
    }

    func setEnabled(_ enabled: Bool) {
        guard !cancelled, enabled == suspended else { return }
        if enabled { source.resume() } else { source.suspend() }
        suspended = !enabled
    }

    /// Cancels the source; a suspended source is resumed first (libdispatch must not release a suspended source).
    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        source.setEventHandler(handler: nil)
        source.cancel()
        if suspended {
            suspended = false
            source.resume()
        }
    }
}
