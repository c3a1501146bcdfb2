import Foundation

/// Runs `body` while this process holds what a program it starts must not inherit: a
/// descriptor open without close-on-exec (given to `body`, above 2), SIGINT blocked on the
/// calling thread (as a Dispatch worker's mask blocks signals) and SIGPIPE ignored (as a
/// process that writes to pipes does). Each is put back afterwards; the signal mask is the
/// calling thread's when `body` starts.
///
/// ```swift
/// let seen = try await withStateAProgramMustNotInherit { _ in try run("ls /proc/self/fd") }
/// ```
public func withStateAProgramMustNotInherit<T>(_ body: (_ leakyDescriptor: Int32) async throws -> T) async rethrows -> T {
    let saved = InheritedState.set()
    defer { saved.restore() }
    return try await body(saved.leaky)
}

private struct InheritedState {
    var leaky: Int32
    var mask: sigset_t
    var pipeHandler: sighandler_t?

    static func set() -> InheritedState {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGINT)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        return InheritedState(leaky: open("/dev/null", O_RDONLY), mask: previous, pipeHandler: signal(SIGPIPE, SIG_IGN))
    }

    func restore() {
        signal(SIGPIPE, pipeHandler)
        var mask = mask
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        close(leaky)
    }
}
