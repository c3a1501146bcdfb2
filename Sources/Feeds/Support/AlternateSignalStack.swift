import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A thread's alternate signal stack: where a handler for SIGSEGV runs when the thread's
/// own stack is exhausted (a handler installed with `SA_ONSTACK`). Each thread must install
/// its own; it is freed when the thread ends.
///
/// ```swift
/// Thread { AlternateSignalStack.prepareCurrentThread(); work() }.start()
/// ```
public enum AlternateSignalStack {
    /// Enough for a handler that only makes a few system calls.
    static let size = 64 * 1024

    /// Gives the calling thread an alternate signal stack, unless it has one.
    public static func prepareCurrentThread() {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 else { return }
        guard let memory = malloc(size) else { return }
        var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
        if sigaltstack(&stack, nil) == 0 {
            pthread_setspecific(ownedStackKey, memory)  // freed by the key's destructor at thread exit
        } else {
            free(memory)
        }
    }

    /// Frees the stack when its thread ends (after switching it off, as glibc does not).
    private static let ownedStackKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { memory in
            var off = stack_t(ss_sp: nil, ss_flags: Int32(SS_DISABLE), ss_size: 0)
            sigaltstack(&off, nil)
            free(memory)
        }
        return key
    }()
}
