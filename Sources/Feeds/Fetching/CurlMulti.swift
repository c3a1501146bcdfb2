import CCurl
import Foundation
import Synchronization

/// libcurl's multi interface on one thread of its own: every transfer of a ``FeedFetcher``
/// runs on that thread, which sleeps in `curl_multi_poll` until a socket is ready, a
/// libcurl timer is due, or `curl_multi_wakeup` brings a new transfer or a cancellation.
/// No busy waiting: a fetch that waits costs no CPU until something happens.
///
/// The thread starts with the first transfer and ends when none has come for a moment
/// (`idleLinger`), so that one request after another (a sync's) runs on one thread; the
/// multi handle (made with the first transfer, which loads libcurl), and with it the
/// connection cache (keep-alive, HTTP/2) and the DNS cache, lives as long as the fetcher.
///
/// ```swift
/// let multi = CurlMulti(maxPerHost: 4, maxConcurrent: 8)
/// multi.start(transfer)       // transfer.continuation is resumed on the loop thread
/// ```
final class CurlMulti: Sendable {
    private struct Inbox {
        var arriving: [CurlTransfer] = []
        var loopRunning = false
    }

    private let inbox = Mutex(Inbox())
    /// How long the loop thread waits for a new transfer once none is left, before it ends.
    private let idleLinger: Duration
    /// How many loop threads this multi has started.
    let loopsStarted = Atomic<Int>(0)
    /// Whether a loop thread is running (or about to start) now.
    var loopRunning: Bool { inbox.withLock { $0.loopRunning } }
    private let maxPerHost: Int
    private let maxConcurrent: Int
    /// Made by the first ``prepare()``, so that a fetcher that never fetches never loads libcurl.
    private let multi = Mutex<MultiHandle?>(nil)

    init(maxPerHost: Int, maxConcurrent: Int, idleLinger: Duration = .milliseconds(250)) {
        self.maxPerHost = maxPerHost
        self.maxConcurrent = maxConcurrent
        self.idleLinger = idleLinger
    }

    /// Loads libcurl and makes the multi handle, on the first call: nil when transfers can
    /// start, else why not (libcurl could not be loaded, or made no multi handle).
    func prepare() -> String? {
        if let failure = CurlGlobal.load() { return failure }
        let handle = multi.withLock { multi -> MultiHandle in
            if let multi { return multi }
            let made = MultiHandle(zc_multi_init())
            if let pointer = made.pointer {
                // Politeness and reuse: at most this many connections to one host, and a cache big
                // enough to keep one connection per running transfer alive for the next.
                _ = zc_multi_setopt_long(pointer, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxPerHost))
                _ = zc_multi_setopt_long(pointer, CURLMOPT_MAXCONNECTS, max(8, min(maxConcurrent, 512) * 2))
            }
            multi = made
            return made
        }
        return handle.pointer == nil ? "libcurl made no multi handle" : nil
    }

    /// Hands `transfer` to the loop thread (starting it if needed). The transfer's
    /// continuation must be set; it is resumed exactly once, on the loop thread.
    func start(_ transfer: CurlTransfer) {
        if let failure = prepare() {
            transfer.finish(.failure(.transport(url: transfer.originalURL, message: failure)))
            return
        }
        let startLoop = inbox.withLock { inbox -> Bool in
            inbox.arriving.append(transfer)
            defer { inbox.loopRunning = true }
            return !inbox.loopRunning
        }
        if startLoop {
            loopsStarted.add(1, ordering: .relaxed)
            let thread = Thread { [self] in runLoop() }
            thread.name = "zeader.FeedFetcher.curl"
            thread.start()
        } else {
            wake()
        }
    }

    /// Makes the loop look at its inbox and at cancellation requests now.
    func wake() {
        if let handle = multi.withLock({ $0 })?.pointer { _ = zc_multi_wakeup(handle) }
    }

    // MARK: - The loop thread

    private func runLoop() {
        guard let handle = multi.withLock({ $0 })?.pointer else { return }
        var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        var idleSince: ContinuousClock.Instant?
        while true {
            let arriving = inbox.withLock { inbox -> [CurlTransfer]? in
                let arriving = inbox.arriving
                inbox.arriving = []
                if arriving.isEmpty && active.isEmpty, let idleSince, .now - idleSince >= idleLinger {
                    inbox.loopRunning = false
                    return nil
                }
                return arriving
            }
            guard let arriving else { return }
            for transfer in arriving {
                if transfer.cancelRequested.load(ordering: .relaxed) {
                    transfer.finish(.failure(.cancelled(url: transfer.originalURL)))
                } else if let easy = transfer.handle, zc_multi_add_handle(handle, easy) == CURLM_OK {
                    active[easy] = transfer
                } else {
                    transfer.finish(.failure(.transport(url: transfer.originalURL, message: "libcurl refused the transfer")))
                }
            }
            for (easy, transfer) in active where transfer.cancelRequested.load(ordering: .relaxed) {
                zc_multi_remove_handle(handle, easy)
                active[easy] = nil
                transfer.finish(.failure(.cancelled(url: transfer.originalURL)))
            }

            var running: Int32 = 0
            _ = zc_multi_perform(handle, &running)
            collectFinished(handle, &active)

            var ready: Int32 = 0
            if active.isEmpty {
                // Waits for a new transfer (``start(_:)`` wakes the poll) until the linger is
                // over; the check above then ends the loop unless one arrived.
                let idle = idleSince ?? .now
                idleSince = idle
                let left = idleLinger - (.now - idle)
                if left > .zero {
                    _ = zc_multi_poll(handle, nil, 0, Int32((left / .milliseconds(1)).rounded(.up)), &ready)
                }
                continue
            }
            idleSince = nil
            // Sleeps until a socket is ready, libcurl's next timer (connect, low-speed and
            // total timeouts), or curl_multi_wakeup; never longer than a second.
            _ = zc_multi_poll(handle, nil, 0, 1000, &ready)
        }
    }

    /// Reads libcurl's "done" messages: redirects go round again on the same handle,
    /// everything else resumes its fetch.
    private func collectFinished(_ handle: UnsafeMutableRawPointer, _ active: inout [UnsafeMutableRawPointer: CurlTransfer]) {
        var queued: Int32 = 0
        while let message = zc_multi_info_read(handle, &queued) {
            // The message is gone once its handle is removed: read it first.
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            guard let transfer = active.removeValue(forKey: easy) else { continue }
            zc_multi_remove_handle(handle, easy)
            switch transfer.complete(with: code) {
            case .followRedirect:
                if zc_multi_add_handle(handle, easy) == CURLM_OK {
                    active[easy] = transfer
                } else {
                    transfer.finish(.failure(.transport(url: transfer.currentURL, message: "cannot follow the redirect")))
                }
            case .done(let result):
                transfer.finish(result)
            }
        }
    }
}

/// The `CURLM *`.
// Safe to share across threads: libcurl lets only one thread use a multi handle at a time,
// and here only the loop thread does (there is at most one, see `Inbox.loopRunning`), except
// `curl_multi_wakeup`, which libcurl documents as callable from any thread, and
// `curl_multi_cleanup` in `deinit`, when no loop can be running (the loop holds the CurlMulti).
private final class MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?

    init(_ pointer: UnsafeMutableRawPointer?) { self.pointer = pointer }

    deinit {
        if let pointer { _ = zc_multi_cleanup(pointer) }
    }
}
