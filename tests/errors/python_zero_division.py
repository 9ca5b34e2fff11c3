# Python integer division by zero (JAX arrays would give inf; Python numbers raise).
steps = 0
print(10 / steps)
