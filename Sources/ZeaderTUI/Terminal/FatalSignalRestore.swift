import Feeds
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Puts the terminal back (the modes from before curses started, the normal screen, a
/// visible cursor, default colours) when the reader dies on a fatal signal — a Swift trap
/// (SIGILL, SIGTRAP), SIGSEGV, SIGBUS, SIGFPE, SIGABRT — and then lets the signal kill the
/// process as it would have (same exit status, core dump where enabled).
///
/// Installed with `sigaction`: `SA_ONSTACK` runs the handler on an alternate stack, so a
/// stack overflow on a thread that has one (the thread that installs the handler, the main
/// thread and the reader's input thread, see ``prepareThread()``) can still run it;
/// `SA_RESETHAND` makes the re-raised signal take its default action. The handler only makes
/// async-signal-safe calls (`tcsetattr`, `write`, `raise`).
///
/// An alternate stack belongs to one thread, and threads the reader does not start
/// (Dispatch's workers, the Swift concurrency pool) have none: a stack overflow there ends
/// the process before any handler can run. So work over untrusted input (a refresh's feed
/// parsing, laying out an article) runs on ``GuardedThreads``, which have one, and the
/// parsers bound their depth rather than recurse on it.
///
/// ```swift
/// FatalSignalRestore.saveTerminalModes()   // before curses changes them
/// let backend = CursesBackend(useColor: true)
/// FatalSignalRestore.install()
/// ```
enum FatalSignalRestore {
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    /// Saves the terminal's modes; call before curses starts.
    static func saveTerminalModes() {
        savedModesValid = tcgetattr(STDIN_FILENO, &savedModes) == 0
    }

    /// Installs the handler for every fatal signal, and an alternate stack for the
    /// calling thread.
    static func install() {
        prepareThread()
        DispatchQueue.main.async { prepareThread() }  // the main thread, when it next runs the main queue
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in restoreAndReraise(number) }
            action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    /// Gives the calling thread an alternate signal stack (once per thread), so that the
    /// handler can run even when the thread's own stack is exhausted.
    static func prepareThread() {
        AlternateSignalStack.prepareCurrentThread()
    }

    /// The reset written to the terminal: default colours, visible cursor, no mouse reports,
    /// normal screen.
    static let reset: StaticString = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?1049l\r\n"
}

// Safe without isolation: written once, before the handlers that read it are installed, and
// only read (by the handler) afterwards.
nonisolated(unsafe) private var savedModes = termios()
// Safe without isolation, as above: set right after savedModes, before the handlers exist.
nonisolated(unsafe) private var savedModesValid = false

/// The handler: async-signal-safe calls only.
private func restoreAndReraise(_ number: Int32) {
    if savedModesValid { tcsetattr(STDIN_FILENO, TCSANOW, &savedModes) }
    _ = write(STDOUT_FILENO, FatalSignalRestore.reset.utf8Start, FatalSignalRestore.reset.utf8CodeUnitCount)
    // SA_RESETHAND has restored the default action: this ends the process with `number`.
    raise(number)
}
