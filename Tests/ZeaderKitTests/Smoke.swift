import Testing
@testable import ZeaderKit
