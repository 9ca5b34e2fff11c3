"""np.mgrid, np.ogrid, np.s_ and their jax.numpy twins: slices with float steps and complex
steps (a number of points, the stop included), and a float slice used as a list index."""
import numpy as np
import jax.numpy as jnp
print(np.mgrid[0:1:5j])
print(np.mgrid[0:3, 0:2])
print(np.mgrid[0:1:3j, 0:2:2j].dtype, np.mgrid[0:1:3j, 0:2:2j].shape)
print(np.mgrid[-1:1:0.5])
print(np.ogrid[0:1:3j, 0:3])
print(np.mgrid[0:1:0.25, 0:1:3j])
x, y, z = np.mgrid[0:1:3j, 0:1:3j, 0:1:2j]
print(x.shape, y[0, :, 0], z[0, 0])
print(jnp.mgrid[0:1:3j])
print(jnp.mgrid[0:2, 0:1:2j])
print(jnp.ogrid[0:1:3j, 0:2])
print(jnp.mgrid[0:4])
s = np.s_[0:1:0.5]
print(s, s.start, s.step, type(s).__name__)
try:
    [1, 2, 3][0.5:]
except TypeError as e:
    print("TypeError", e)
