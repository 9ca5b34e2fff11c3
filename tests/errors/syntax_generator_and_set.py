# A generator expression and a set literal, which the playground does not have yet.
squares = (x * x for x in range(4))
s = {1, 2, 3}
