# Source: https://github.com/aidancrilly/MiniCourse-DifferentiableSimulation/blob/5e0bb7bd00dfc14b4e3d72f40e039197d2a6c277/00_JAXIntro.ipynb (Aidan Crilly, Imperial College mini-course on differentiable simulation, 2025: an introduction to JAX)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the notebook has no saved outputs, and its one cell that raises, `jax.jit(variable_length_result)(x,n)` (the static-argument example it goes on to fix), dropped); smaller sizes (cosine-similarity vectors N = 10000 -> 1000); matplotlib import and plotting calls dropped
# Ignore lines matching: ^(Python|JAXPython|Compile|JIT|Forward-mode|Reverse-mode) time:

import jax
import jax.numpy as jnp

def cosine_similatiries(x, y):
  """
  Computes the cosine similarity between two vectors.

  We will use very large input vectors for x and y
  """
  x_norm = jnp.sum(x ** 2) ** 0.5
  y_norm = jnp.sum(y ** 2) ** 0.5
  return jnp.sum(x * y) / (x_norm * y_norm)

def pythonic_cosine_similatiries(x, y):
  """
  For comparison
  """
  x = list(x)
  y = list(y)
  x_norm = 0.0
  y_norm = 0.0
  for i in range(len(x)):
    x_norm += x[i] ** 2
    y_norm += y[i] ** 2
  x_norm = x_norm ** 0.5
  y_norm = y_norm ** 0.5
  return sum(x[i] * y[i] for i in range(len(x))) / (x_norm * y_norm)

jitted_cosine_similatiries = jax.jit(cosine_similatiries)

N = 1000

seed = 1337
key = jax.random.key(seed)

key, subkey = jax.random.split(key)
x = jax.random.normal(subkey, (N,))
key, subkey = jax.random.split(key)
y = jax.random.normal(subkey, (N,))

import timeit

python_time = timeit.timeit(lambda: pythonic_cosine_similatiries(x, y), number=1)
jax_time = timeit.timeit(lambda: cosine_similatiries(x, y), number=100)/100
compile_time = timeit.timeit(lambda: jitted_cosine_similatiries(x, y), number=1)
jit_time = timeit.timeit(lambda: jitted_cosine_similatiries(x, y), number=100)/100

print(f'Python time: {1e3*python_time:.4f} ms')
print(f'JAXPython time: {1e3*jax_time:.4f} ms')
print(f'Compile time: {1e3*compile_time:.4f} ms')
print(f'JIT time: {1e3*jit_time:.4f} ms')

def variable_length_result(x,n):
  res = jnp.linspace(0.0,x,n)
  return res

x = 0.25
n = 5

nojit_res = variable_length_result(x,n)
print(nojit_res)

# static_argnames tells JAX to recompile on changes at these argument positions:
jitted_res = jax.jit(variable_length_result, static_argnames=['n'])(x,n)
print(jitted_res)

x = jnp.linspace(0.0,1.0,100)
y = jnp.where(x > 0.5, x, 0)
print(y)

def compute_cumulants(x,w):
  mu = jnp.sum(w*x)/jnp.sum(w)
  var = jnp.sum(w*(x-mu)**2)/jnp.sum(w)
  return mu, var

# in_axes specifies over which axis the vectorising map should occur
# None here says no vectorisation should be used, i.e. use the same w for all x
vmapped_compute_cumulants = jax.vmap(compute_cumulants,in_axes=(1,None))

Nx1 = 100
Nx2 = 20

key, subkey = jax.random.split(key)
x = jax.random.normal(subkey, (Nx1,Nx2))
key, subkey = jax.random.split(key)
w = jax.random.normal(subkey, (Nx1))**2

mu, var = vmapped_compute_cumulants(x,w)
print(mu.shape)
print(var.shape)

x = jnp.array([1.0,2.0,3.0,4.0])

# This is not allowed
try:
  x[1] = -2.0
except TypeError as e:
  print('Numpy-like array updates not allowed:')
  print(e)

# You have to use the following syntax to perform in-place update
x = x.at[1].set(-2.0)
print('\nUsing in-place updates:')
print(x)

def sin_func(x):
  return jnp.sin(x)

x = jnp.linspace(-5,5,100)

# Note we need to vmap our gradded function as jax.grad operates on scalar output functions only
grad_sin_func = jax.vmap(jax.grad(sin_func))
y = grad_sin_func(x)

def sin_variable_w_func(input):
  return jnp.sin(input['w']*input['x'])

# First for scalars
input = {'w' : 2.0, 'x' : 1.0}

scalar_grad_sin_variable_w_func = jax.grad(sin_variable_w_func)
print(scalar_grad_sin_variable_w_func(input))

# Now for scalar w and vector x

input = {'w' : 2.0, 'x' : jnp.linspace(-5,5,100)}

vector_x_grad_sin_variable_w_func = jax.vmap(scalar_grad_sin_variable_w_func,
                                             in_axes=({'w' : None, 'x' : 0},))
out = vector_x_grad_sin_variable_w_func(input)

def sin_cos_func(x):
  """
  Test function with two outputs
  """
  return jnp.array([jnp.sum(jnp.sin(x)), jnp.sum(jnp.cos(x))])

x = jnp.linspace(-5,5,100)

forwardmode_jac = jax.jacfwd(sin_cos_func)
reversemode_jac = jax.jacrev(sin_cos_func)

forwardmode_out = forwardmode_jac(x)
reversemode_out = reversemode_jac(x)

print(f'The shape of the forward-mode Jacobian is {forwardmode_out.shape}')
print(f'The shape of the reverse-mode Jacobian is {reversemode_out.shape}')

assert jnp.isclose(forwardmode_out,reversemode_out).all()
# Note forwardmode_out =/= reversemode_out ! they involve different FLOPs

forwardmode_jac = jax.jit(forwardmode_jac)
reversemode_jac = jax.jit(reversemode_jac)

x_big = jnp.linspace(-5,5,1000)

forwardmode_time = timeit.timeit(lambda: forwardmode_jac(x_big), number=100)/100
reversemode_time = timeit.timeit(lambda: reversemode_jac(x_big), number=100)/100

print(f'Forward-mode time: {1e3*forwardmode_time:.4f} ms')
print(f'Reverse-mode time: {1e3*reversemode_time:.4f} ms')

def test_function(x):
  res = {
      'f0' : (jnp.sin(x[1])+x[2]*jnp.sin(x[3]))*jnp.exp(x[0]),
      'f1' : (jnp.sin(x[1])+x[2]*jnp.sin(x[3]))*jnp.exp(-x[0])
  }
  return res

x = jnp.array([1.0,2.0,3.0,4.0])

# To get df/dx[i] for each i, we need to sweep through the JVP on the input space
for i in range(len(x)):
  v = jnp.eye(len(x))[i]
  y, u = jax.jvp(test_function, (x,), (v,))
  print(f'df/dx[{i}] = {u}')

y, vjp_fun = jax.vjp(test_function, x)

# To get df[j]/dx for each j, we need to sweep through the VJP on the output space
v = {'f0' : 1.0, 'f1' : 0.0}
u = vjp_fun(v)
print(f'df[0]/dx = {u}')

v = {'f0' : 0.0, 'f1' : 1.0}
u = vjp_fun(v)
print(f'df[1]/dx = {u}')

print(jax.jacfwd(test_function)(x))
print(jax.jacrev(test_function)(x))
