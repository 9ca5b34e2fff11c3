# A string repeated until it would not fit in memory.
s = "ab" * 2000000000
