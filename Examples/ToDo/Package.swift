// swift-tools-version:6.1
// A ToDo app on ObjectGraph, as a Core Data developer would write it: a model in two
// versions (v1 → v2 migration), live results, and an edit in a child context.
// Build and run from the repository root: swift run --package-path Examples/ToDo
import PackageDescription

let package = Package(
    name: "ToDo",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Zeader", path: "../..")],
    targets: [
        .executableTarget(name: "ToDo", dependencies: [.product(name: "ObjectGraph", package: "Zeader")])
    ],
    swiftLanguageModes: [.v6]
)
