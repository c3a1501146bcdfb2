import ArgumentParser
import Feeds
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `zeader parse FILE [--base-url URL]`: parses one feed file and prints the JSON of the
/// contract (docs/ARCHITECTURE.md, "Contracts") on stdout.
///
/// ```sh
/// zeader parse feed.xml --base-url https://example.org/feed.xml | jq .title
/// ```
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Parse one feed file (RSS, RDF, Atom or JSON Feed) and print it as JSON.")

    @Argument(help: "The feed file to parse.")
    var file: String

    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The feed's URL: relative links are resolved against it (after any xml:base).",
            valueName: "URL"))
    var baseURL: String?

    func validate() throws {
        if let baseURL, URL(string: baseURL)?.scheme == nil {
            throw ValidationError("--base-url '\(baseURL)' is not an absolute URL")
        }
    }

    func run() throws {
        // A one-shot process that keeps everything it allocates (see ParseThroughputTuning).
        ParseThroughputTuning.growHeapInLargeSteps()
        let data: Data
        switch Self.mapFile(file) {
        case .success(let bytes): data = bytes
        case .failure(let reason):
            FileHandle.standardError.write(Data("zeader parse: cannot read \(file): \(reason)\n".utf8))
            throw ExitCode.failure
        }
        do {
            let problems = try FeedParser.writeContractJSON(data: data, url: baseURL.flatMap { URL(string: $0) }) { chunk in
                Self.writeToStandardOutput(chunk)
            }
            // What was read is printed; what may be missing is said (exit status 0).
            for problem in problems {
                FileHandle.standardError.write(Data("zeader parse: \(file): \(Self.oneLine(problem))\n".utf8))
            }
            // Done: leave without tearing down the feed item by item (tens of thousands of
            // strings for a large feed); output went straight to the descriptor, unbuffered.
            Glibc.exit(EXIT_SUCCESS)
        } catch {
            let message = baseURL == nil ? "\(file): \(error.withoutSubject)" : "\(error)"
            FileHandle.standardError.write(Data("zeader parse: \(Self.oneLine(message))\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Writes all of `bytes` to file descriptor 1 (no stdio buffer in between).
    private static func writeToStandardOutput(_ bytes: UnsafeRawBufferPointer) {
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(STDOUT_FILENO, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return  // stdout closed (e.g. a pipe to `head`): nothing more to do
            }
            pointer += written
            remaining -= written
        }
    }

    struct ReadFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The file's bytes, mapped read-only; the reason, as the system words it, when it
    /// cannot be read. Not prefaulted (`MAP_POPULATE` would map every page before anything
    /// else could start): the pages of a cached file are mapped 16 at a time on first touch,
    /// by the two threads that check the UTF-8 of each half.
    static func mapFile(_ path: String) -> Result<Data, ReadFailure> {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
        if (status.st_mode & S_IFMT) == S_IFDIR { return .failure(ReadFailure(description: "it is a directory")) }
        let size = Int(status.st_size)
        if (status.st_mode & S_IFMT) != S_IFREG || size == 0 {
            // Pipes, character devices, empty files: read them the ordinary way.
            do {
                let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
                return .success(try handle.readToEnd() ?? Data())
            } catch {
                return .failure(ReadFailure(description: oneLine(error.localizedDescription)))
            }
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED
        else { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
        return .success(Data(bytesNoCopy: mapped, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) }))
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

extension FeedParseError {
    /// The description without the feed's name (the caller names the file).
    fileprivate var withoutSubject: String {
        let full = FeedParseError(reason, url: nil).description
        return full.hasPrefix("feed: ") ? String(full.dropFirst(6)) : full
    }
}
