internal import CCurl
import Foundation
import Synchronization

/// Runs every download of the process on one thread, through one libcurl multi handle.
///
/// libcurl's easy interface blocks the calling thread for a whole transfer; calling it from a task
/// would hold a thread of Swift's cooperative pool (a handful in all) for as long as a server
/// cares to drip, and a thread per download is unbounded. The multi interface runs any number of
/// transfers from one thread: the driver adds new transfers, lets libcurl move the bytes
/// (`curl_multi_perform`), finishes what is done, ends transfers failed from outside (a deadline,
/// a cancelled task), and sleeps in `curl_multi_poll` until a socket is ready, a libcurl timer is
/// due, or ``wake()`` is called. The thread starts on first use and stays, idle in the poll.
final class CurlDriver: Sendable {
    /// The process's driver.
    static let shared = CurlDriver()

    private let multi: CurlMulti?
    /// Transfers handed over and not yet added to the multi handle.
    private let incoming = Mutex<[CurlTransfer]>([])
    private let started = Mutex(false)

    private init() {
        _ = castor_curl_global_init()
        multi = CurlMulti()
    }

    /// Hands a transfer to the driver thread; its completion is called when it ends.
    func start(_ transfer: CurlTransfer) {
        guard let multi else {
            transfer.fail(CastDownloadError(code: .failed, message: "libcurl could not create a multi handle"))
            transfer.complete()
            return
        }
        incoming.withLock { $0.append(transfer) }
        let first = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        if first {
            Thread.detachNewThread { [self] in
                castor_name_current_thread("castor-download")  // 15 characters, the most the kernel keeps
                run(multi)
            }
        } else {
            multi.wakeup()
        }
    }

    /// Wakes the driver thread (a transfer failed from outside, or a new one is waiting).
    func wake() { multi?.wakeup() }

    /// The driver thread's loop; never returns.
    private func run(_ multi: CurlMulti) {
        var active: [UnsafeMutableRawPointer: (transfer: CurlTransfer, easy: CurlEasy)] = [:]

        func begin(_ transfer: CurlTransfer) {
            guard !transfer.hasFailed, let easy = transfer.makeRequest() else {
                transfer.complete()
                return
            }
            guard multi.add(easy.handle) else {
                transfer.fail(CastDownloadError(code: .failed, message: "libcurl could not add a transfer"))
                transfer.complete()
                return
            }
            active[easy.handle] = (transfer, easy)
        }

        func end(_ handle: UnsafeMutableRawPointer) -> (transfer: CurlTransfer, easy: CurlEasy)? {
            guard let entry = active.removeValue(forKey: handle) else { return nil }
            multi.remove(handle)
            return entry
        }

        while true {
            for transfer in incoming.withLock({ incoming in defer { incoming.removeAll() }; return incoming }) {
                begin(transfer)
            }
            // Failed from outside (deadline, rate, cancellation) or by a callback: end it now.
            for (handle, entry) in active where entry.transfer.hasFailed {
                _ = end(handle)
                entry.transfer.complete()
            }
            multi.perform()
            while let (handle, code) = multi.nextDone() {
                guard let (transfer, easy) = end(handle) else { continue }
                switch transfer.finished(code, easy: easy) {
                case .follow: begin(transfer)
                case .done: transfer.complete()
                }
            }
            // Until a socket is ready, a libcurl timer is due (it shortens this), or wake().
            multi.poll(milliseconds: 60_000)
        }
    }
}

/// A libcurl multi handle, freed with the object. Only ``wakeup()`` may be called from any thread.
private final class CurlMulti: Sendable {
    private nonisolated(unsafe) let handle: UnsafeMutableRawPointer

    init?() {
        guard let handle = curl_multi_init() else { return nil }
        self.handle = handle
    }

    deinit { curl_multi_cleanup(handle) }

    /// Interrupts a `poll` in progress, or makes the next one return at once (thread-safe).
    func wakeup() { _ = curl_multi_wakeup(handle) }

    func add(_ easy: UnsafeMutableRawPointer) -> Bool { curl_multi_add_handle(handle, easy) == CURLM_OK }

    func remove(_ easy: UnsafeMutableRawPointer) { _ = curl_multi_remove_handle(handle, easy) }

    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(handle, &running)
    }

    /// The next finished request and its result.
    func nextDone() -> (UnsafeMutableRawPointer, CURLcode)? {
        var result = CURLE_OK
        guard let easy = castor_curl_multi_next_done(handle, &result) else { return nil }
        return (easy, result)
    }

    func poll(milliseconds: Int32) { _ = curl_multi_poll(handle, nil, 0, milliseconds, nil) }
}
