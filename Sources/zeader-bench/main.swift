print("zeader-bench")
