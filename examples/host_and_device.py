# NumPy on the host, arrays on the device
#
# A JAX program's host is Python and NumPy; the TPU is the device. A NumPy array handed to a
# jitted function is copied to the device on every call (float64 becomes float32, four bytes an
# element), while a device array stays where it is. The first loop passes the 256×128 batch as
# NumPy, so each of its four calls copies 256 × 128 × 4 = 131,072 bytes; the second passes it as
# a device array, made once by jnp.asarray. The `loss` row's "host→device bytes" adds up what its
# calls were sent (the 5,120-byte weights included, copied before its first call), and the line
# under the table counts every copy of the run both ways: each float() reads a 4-byte loss back
# from the device. Input pipelines are about keeping that copy off the critical path.
import numpy as np
import jax
import jax.numpy as jnp

rng = np.random.default_rng(0)
x_host = rng.standard_normal((256, 128))
w = jnp.asarray(rng.standard_normal((128, 10)) * 0.1)


@jax.jit
def loss(w, x):
    return jnp.mean((x @ w) ** 2)


for step in range(4):
    print("NumPy batch, step", step, round(float(loss(w, x_host)), 4))

x_device = jnp.asarray(x_host)
for step in range(4):
    print("device batch, step", step, round(float(loss(w, x_device)), 4))
