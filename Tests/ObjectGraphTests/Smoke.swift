import Testing
@testable import ObjectGraph
