# A misspelt transformation.
import jax

f = jax.jitt(lambda x: x + 1)
