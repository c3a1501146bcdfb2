import Testing
@testable import Feeds
