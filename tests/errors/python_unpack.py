# Unpacking three values into two names.
a, b = (1, 2, 3)
