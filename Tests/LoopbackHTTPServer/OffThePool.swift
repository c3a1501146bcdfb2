import Foundation

/// Runs `work`, which blocks (waits for a child process, reads a pipe to its end, sleeps), on a
/// thread of its own, and awaits its result without holding a thread of Swift's cooperative
/// pool. Swift Testing runs every test on that pool, which has one thread per core (two on
/// CI): a test that blocks in it starves every other test for as long as it waits.
///
/// Issues cannot be recorded from `work` (it runs outside the test's task): return what the
/// test checks, and check it after the `await`.
///
/// ```swift
/// let status = try await waitingOffThePool { () throws -> Int32 in
///     let process = try Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
///     process.waitUntilExit()
///     return process.terminationStatus
/// }
/// ```
public func waitingOffThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = "waiting off the pool"
        thread.start()
    }
}
