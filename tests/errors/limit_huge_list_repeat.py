# A list repeated until it would not fit in memory.
xs = [0.0] * 1000000000
