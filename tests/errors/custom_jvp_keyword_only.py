# A custom_jvp function's keyword-only parameter cannot be bound to a position.
import jax

@jax.custom_jvp
def scaled(x, *, k=2.0):
    return x * k

scaled.defjvp(lambda primals, tangents: (scaled(*primals), tangents[0] * 2.0))
print(jax.grad(scaled)(1.0, k=3.0))
