import ZeaderKit
