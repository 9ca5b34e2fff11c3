# Source: https://github.com/PhillipLo/jax-tutorial/blob/c660f1ed85f66b395e704d121a213e7f7fa861b1/tutorial.ipynb (Phillip Lo, a tutorial on JAX, 2022)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); the raising last statement of the 3 cells whose saved output is an error (`A[0] = 0`, `add_one_or_two_jitted(1.0, True)`, `stupid_mult_jitted(3, 4)`) dropped, the rest of those cells kept); synthetic data seeded (np.random.seed(0) added after `import numpy as np`; the notebook's np.random.normal matrix was unseeded); matplotlib import and plotting call dropped

# RUN THIS FIRST, prevent JAX from eating up GPU memory
import os
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"

import numpy as np
import jax.numpy as jnp

np.random.seed(0)

x = np.array([1., 2., 3.])
y = np.array([0., 1., 5.])
z = np.array([2., 3., 4.])
print(f"with numpy: {x * y + z}")


x_ = jnp.array([1., 2., 3.])
y_ = jnp.array([0., 1., 5.])
z_ = jnp.array([2., 3., 4.])
print(f"with jax: {x_ * y_ + z_}")

np_linspace = np.linspace(0, 1, 3)
jnp_linspace = jnp.linspace(0, 1, 3)

print(f"np_linspace: {np_linspace}")
print(f"jnp_linspace: {jnp_linspace}\n")

A = np.random.normal(size = (10, 10))
np_2norm = np.linalg.norm(A, ord = 2)
jnp_2norm = jnp.linalg.norm(A, ord = 2) # notice that we can feed np array into jnp function!

print(f"np_2norm: {np_2norm:.4f}")
print(f"jnp_2norm: {jnp_2norm:.4f}\n")

x = jnp.linspace(0, 2 * jnp.pi)
y = jnp.sin(x)

from jax import random

key = random.PRNGKey(0) # initialize key from your favorite integer

A = random.normal(key, shape = (2, 2))
print(f"A: {A}")
B = random.normal(key, shape = (2, 2)) # will get the same thing as A!
print(f"B: {B}")

key, subkey = random.split(key) # new key and subkey are different from original key
C = random.normal(key, shape = (2, 2))
print(f"C: {C}")
D = random.normal(subkey, shape = (2, 2))
print(f"D: {D}")

# in numpy, we can do in-place array updates:
A = np.array([1, 2, 3])
print(f"this is A: {A}")

A[0] = 0
print(f"this is the new A in numpy: {A}")

# in jax, this doesn't work:
A = jnp.array([1, 2, 3])
print(f"this is A: {A}")

# instead, we have to do this:

A = A.at[0].set(0)
print(f"this is the new A: {A}")

from jax import grad

sin_grad = grad(jnp.sin)
print(f"sin'(1): {sin_grad(1.0):.4f}")
print(f"cos(1): {jnp.cos(1.0):.4f}")

def f(x): 
  return jnp.sin(x**2) + 3 * x**2

def grad_f_manual(x):
  return 2 * x * jnp.cos(x**2) + 6 * x

grad_f_auto = grad(f)

x = 2.0
print(f"manual f'(1): {grad_f_manual(x):.4f}")
print(f"auto f'(1): {grad_f_auto(x):.4f}")

# denote X = (x, y, z)

def f(X): 
  return X[0]**2 + 3 * jnp.sin(X[1]) + jnp.cos(X[2])

def grad_f_manual(X):
  return jnp.array([2 * X[0], 3 * jnp.cos(X[1]), -jnp.sin(X[2])])

grad_f_auto = grad(f)

X = jnp.array([2.0, 3.0, 1.0])
print(f"manual f'(1): {grad_f_manual(X)}")
print(f"auto f'(1): {grad_f_auto(X)}")

def f(X):
  return X['x']**2 + 3 * jnp.sin(X['y']) + jnp.cos(X['z'])

def grad_f_manual(X):
  return jnp.array([2 * X['x'], 3 * jnp.cos(X['y']), -jnp.sin(X['z'])])

grad_f_auto = grad(f)

X = {'x' : 2.0, 'y' : 3.0, 'z' : 1.0}
print(f"manual f'(1): {grad_f_manual(X)}")
print(f"auto f'(1): {grad_f_auto(X)}")

def f(x, y):
  return jnp.linalg.norm(x)**2 + jnp.linalg.norm(y) + jnp.inner(x, y)

Dxf = grad(f, 0) # take the derivative wrt the zeroth argument
Dyf = grad(f, 1) # take the derivative wrt the first argument

x = jnp.array([1., 2., 3.])
y = jnp.array([0, -1., 1.])

print(f"derivative wrt x: {Dxf(x, y)}")
print(f"manually computed: {2 * x + y}\n")
print(f"derivative wrt y: {Dyf(x, y)}")
print(f"manually computed: {y / jnp.linalg.norm(y) + x}")

from jax import value_and_grad

def f(x):
  return x ** 2

value, grad = value_and_grad(f)(3.0)
print(f"value: {value}")
print(f"grad: {grad}")

from jax import jvp

def f(x):
  return jnp.array([x[0] + 2 * x[1], jnp.sin(x[0]) * jnp.exp(x[1]), x[1]**3])

def Jf_manual(x):
  return jnp.array([
    [1, 2], 
    [jnp.cos(x[0]) * jnp.exp(x[1]), jnp.sin(x[0]) * jnp.exp(x[1])],
    [0, 3 * x[1] **2]
  ])

# compute the jvp manually
def jvp_manual(x, v):
  return Jf_manual(x) @ v

x = jnp.array([1., 2.])
v = jnp.array([2., 3.])

print(f"manually computed jvp: {jvp_manual(x, v)}")

# compute the jvp using jax.jvp():

func_value, jvp_JAX = jvp(f, (x,), (v,)) # jvp returns both the function value and the jvp
print(f"JAX computed jvp: {jvp_JAX}")

def Jf_JVPs(x): # compute the full Jacobian at x using JVPs
  Jf = np.zeros(shape = (3, 2))
  for j in range(2):
    # compute the jth basis vector
    ej = np.zeros(shape = 2)
    ej[j] = 1

    # set the jth column equal to JVP with v = ej
    Jf[:, j] = jvp(f, (x,), (ej,))[1] # remember jvp returns function value and jvp

  return Jf

x = jnp.array([2., 3.])

print(f"Jf with JVPs: \n {Jf_JVPs(x)}")
print(f"Jf manual: \n {Jf_manual(x)}")

from jax import jacfwd

print(f"Jf with jacfwd(): \n {jacfwd(f)(x)}")

from jax import vjp

def f(x):
  return jnp.array([x[0] + 2 * x[1], jnp.sin(x[0]) * jnp.exp(x[1]), x[1]**3])

def Jf_manual(x):
  return jnp.array([
    [1, 2], 
    [jnp.cos(x[0]) * jnp.exp(x[1]), jnp.sin(x[0]) * jnp.exp(x[1])],
    [0, 3 * x[1] **2]
  ])

# compute the vjp manually
def vjp_manual(x, v):
  return v @ Jf_manual(x)

x = jnp.array([1., 2.])
v = jnp.array([2., 3., 4.])

print(f"manually computed jvp: {vjp_manual(x, v)}")

# compute the jvp using jax.jvp():

func_value, vjp_JAX = vjp(f, x) # vjp signature is a bit different from jvp
print(f"JAX computed jvp: {vjp_JAX(v)}")

def Jf_VJPs(x): # compute the full Jacobian at x using VJPs
  Jf = np.zeros(shape = (3, 2))
  for i in range(3):
    # compute the ith basis vector
    ei = np.zeros(shape = 3)
    ei[i] = 1

    # set the ith column equal to JVP with v = ej
    Jf[i] = vjp(f, x)[1](ei)[0]
  return Jf

x = jnp.array([2., 3.])

print(f"Jf with VJPs: \n {Jf_VJPs(x)}")
print(f"Jf manual: \n {Jf_manual(x)}")

from jax import jacrev

print(f"Jf with jacrev(): \n {jacrev(f)(x)}")

from jax import jit

def add_one_or_two(x, add_one): 
  if add_one: # control flow depends on the argument add_one
    return x + 1
  else:
    return x + 2

add_one_or_two_jitted = jit(add_one_or_two)

def add_one_or_two(x, add_one): 
  if add_one: # control flow depends on the argument add_one
    return x + 1
  else:
    return x + 2

add_one_or_two_jitted = jit(add_one_or_two, static_argnums = 1)
print(add_one_or_two_jitted(1.0, True))

def stupid_mult(a, b): # multiply two integers a and b in a very dumb way
  bs = b * np.ones(shape = (a,)) # the shape of bs depends on a!
  ab = np.sum(bs)

  return ab

stupid_mult_jitted = jit(stupid_mult)

stupid_mult_jitted = jit(stupid_mult, static_argnums = 0)
print(stupid_mult_jitted(3, 4))
