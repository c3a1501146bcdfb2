import Testing
@testable import ZeaderTUI
