# Loops, prints and host callbacks
#
# Newton's method for a square root stops when it is close enough, so its trip count is data:
# `lax.while_loop` compiles the condition and the body once each, and the host runs the loop,
# reading the condition back every step. The counters table shows `newton/cond` called once
# more than the body, for each of the two calls. `jax.debug.print` in the body prints at every
# step, as the program reaches it: the host calls back there, so the body is cut at the print
# and its update runs as `newton/body/part1`. A `jax.pure_callback` hands values to Python on
# the host mid-program (here NumPy's float64 `arctan`) and takes its result back: `angles` is
# cut there into `angles/part1` and `angles/part2`, and that round trip is what an outfeed
# costs a real TPU.
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def newton(a):
    def body(x):
        jax.debug.print("x = {x:.6f}", x=x)
        return 0.5 * (x + a / x)

    return lax.while_loop(lambda x: jnp.abs(x * x - a) > 1e-4, body, a)


print(newton(2.0), newton(10.0))


def host_arctan(x):
    return np.arctan(np.asarray(x, np.float64)).astype(np.float32)


@jax.jit
def angles(v):
    scaled = v * 2.0
    theta = jax.pure_callback(host_arctan, jax.ShapeDtypeStruct(v.shape, v.dtype), scaled)
    return jnp.sum(jnp.cos(theta))


print(angles(jnp.linspace(-1.0, 1.0, 8)))
