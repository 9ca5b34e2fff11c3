# Source: https://github.com/Smit-create/jax_tutorial/blob/4e4e8a4a52afb7122ce8ba22ae50825aaa1c0f5e/lectures/lecture_04.md (Smit-create, JAX tutorial lecture 4: vectorization with meshgrid, vmap and pmap)
# License: none stated (see source)
# Changed: MyST notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the %%time magics dropped); smaller sizes (the large grid n = 6000 -> 600)

import jax.numpy as jnp
import jax
import numpy as np

# Define a vectorized computation to calculate the element-wise square of an array
def square_elements(x):
    return x ** 2

# Apply the vectorized computation to an array
input_array = jnp.array([1, 2, 3, 4, 5])
result_array = square_elements(input_array)
print("Squared elements:", result_array)

@jax.jit
def f(x, y):
    return jnp.cos(x**2 + y**2) / (1 + x**2 + y**2)

n = 80
x = jnp.linspace(-2, 2, n)
y = x

z_loops = np.empty((n, n))

for i in range(n):
    for j in range(n):
        z_loops[i, j] = f(x[i], y[j])

z_bad = f(x, y)

print(z_bad.shape)

print(z_loops.shape)

x_mesh, y_mesh = jnp.meshgrid(x, y)

z_mesh = f(x_mesh, y_mesh)

z_mesh = f(x_mesh, y_mesh)

print(jnp.allclose(z_mesh, z_loops))

n = 600
x = jnp.linspace(-2, 2, n)
y = x
x_mesh, y_mesh = jnp.meshgrid(x, y)

z_mesh = f(x_mesh, y_mesh)

z_mesh = f(x_mesh, y_mesh)

print(x_mesh.nbytes + y_mesh.nbytes)

print(x.nbytes)  # and y is just a pointer to x

f_vec_y = jax.vmap(f, in_axes=(None, 0))

f_vec = jax.vmap(f_vec_y, in_axes=(0, None))

z_vmap = f_vec(x, y)

z_vmap = f_vec(x, y)

print(z_vmap.shape)

print(jnp.allclose(z_vmap, z_mesh))

# Define a function to square each element of an array
def square(x):
    return x ** 2

# Parallelize the function using jax.pmap
parallel_square = jax.pmap(square)

# Apply the parallelized function to an array
num_available_devices = jax.local_device_count()

input_array = jnp.arange(num_available_devices)

result_array = parallel_square(input_array)
print("Squared elements (parallel):", result_array)
