// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Zeader",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "Feeds", targets: ["Feeds"]),
        .executable(name: "zeader", targets: ["zeader"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CNCurses",
            providers: [.apt(["libncursesw5-dev"])]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(
            name: "ObjectGraph",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .target(name: "Feeds", dependencies: ["CLibXML2", "CCurl"]),
        .target(name: "ZeaderKit", dependencies: ["ObjectGraph", "Feeds"]),
        .target(name: "ZeaderTUI", dependencies: ["ZeaderKit", "CNCurses"]),
        .executableTarget(
            name: "zeader",
            dependencies: [
                "ZeaderKit", "ZeaderTUI", "Feeds", "ObjectGraph",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "zeader-bench",
            dependencies: [
                "ObjectGraph", "ZeaderKit", "ZeaderTUI", "Feeds",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "ObjectGraphTests",
            dependencies: ["ObjectGraph", .product(name: "GRDB", package: "GRDB.swift")]),
        // A loopback-only HTTP server for tests (127.0.0.1, stops by itself); shared by test targets.
        .target(name: "LoopbackHTTPServer", path: "Tests/LoopbackHTTPServer"),
        .testTarget(name: "FeedsTests", dependencies: ["Feeds", "LoopbackHTTPServer"], resources: [.copy("Fixtures")]),
        // GRDB only to look at a store's file as an outsider would (the reader's old search index).
        .testTarget(
            name: "ZeaderKitTests",
            dependencies: ["ZeaderKit", "LoopbackHTTPServer", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "ZeaderTUITests", dependencies: ["ZeaderTUI", "LoopbackHTTPServer"]),
        // The command line's own parts (argument handling, progress bar, terminal text) and
        // its commands parsed in-process, one behaviour per test.
        .testTarget(name: "zeaderTests", dependencies: ["zeader"]),
    ],
    swiftLanguageModes: [.v6]
)
