# jax.tree.map over trees of different structures.
import jax

print(jax.tree.map(lambda a, b: a + b, [1, 2], [1, 2, 3]))
