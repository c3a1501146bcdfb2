// swift-tools-version:6.1
// An inbox on ObjectGraph with Swift concurrency: a background actor delivers messages while
// the view context, watched with Observation, sees each save merged; an archive comes in
// through the async importer, whose progress is a stream.
// Build and run from the repository root: swift run --package-path Examples/Inbox
import PackageDescription

let package = Package(
    name: "Inbox",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Zeader", path: "../..")],
    targets: [
        .executableTarget(name: "Inbox", dependencies: [.product(name: "ObjectGraph", package: "Zeader")])
    ],
    swiftLanguageModes: [.v6]
)
