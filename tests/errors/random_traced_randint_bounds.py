# randint inside jit makes its values on the machine, whose int32 words hold float32 values.
import jax

@jax.jit
def ids(key):
    return jax.random.randint(key, (4,), 0, 2**30)

print(ids(jax.random.PRNGKey(0)))
