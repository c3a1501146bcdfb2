import ZeaderKit
print("zeader \(zeaderVersion)")
