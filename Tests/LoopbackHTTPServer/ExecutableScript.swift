import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes an executable shell script that tests run as a program.
///
/// Written through a descriptor opened with `O_CLOEXEC`, never through
/// `String.write(to:atomically:)`: that one writes through `mkstemp`, whose descriptor a
/// program started by a test running in parallel inherits. While any child still holds the
/// file open for writing, running it fails with `ETXTBSY` ("text file busy"); a child that
/// sleeps holds it for as long as it sleeps.
///
/// ```swift
/// let program = try writeExecutableScript("exit 3", to: folder.appendingPathComponent("feed.sh"))
/// ```
@discardableResult
public func writeExecutableScript(_ body: String, to file: URL) throws -> URL {
    let text = "#!/bin/sh\n" + body + "\n"
    let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard descriptor >= 0 else { throw ScriptError(path: file.path, errno: errno) }
    defer { close(descriptor) }
    let written = text.utf8CString.withUnsafeBytes { bytes in write(descriptor, bytes.baseAddress, bytes.count - 1) }
    guard written == text.utf8.count else { throw ScriptError(path: file.path, errno: errno) }
    // O_CREAT applies the mode through the umask; the script must be executable whatever it is.
    guard fchmod(descriptor, 0o755) == 0 else { throw ScriptError(path: file.path, errno: errno) }
    return file
}

/// Why a test script could not be written.
public struct ScriptError: Error, CustomStringConvertible {
    public let path: String
    public let errno: Int32
    public var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
}
