# Source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/docs/new_docs/201/control-flow.md (draft of the new JAX docs: control flow and logical operators with jit)
# License: Apache-2.0
# Changed: MyST notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); the remove-cell `%xmode minimal` cell dropped (IPython magic); the raising last statement of the 3 cells the page marks raises-exception that also hold definitions dropped, the rest of those cells kept; the 1 raises-exception cell that is only that statement dropped

from jax import grad, jit
import jax.numpy as jnp

@jit
def f(x):
  for i in range(3):
    x = 2 * x
  return x

print(f(3))

@jit
def g(x):
  y = 0.
  for i in range(x.shape[0]):
    y = y + x[i]
  return y

print(g(jnp.array([1., 2., 3.])))

@jit
def f(x):
  if x < 3:
    return 3. * x ** 2
  else:
    return -4 * x

# This will fail!

@jit
def g(x):
  return (x > 0) and (x < 3)

# This will fail!

def f(x):
  if x < 3:
    return 3. * x ** 2
  else:
    return -4 * x

f = jit(f, static_argnames='x')

print(f(2.))

def f(x, n):
  y = 0.
  for i in range(n):
    y = y + x[i]
  return y

f = jit(f, static_argnames='n')

print(f(jnp.array([2., 3., 4.]), 2))

def example_fun(length, val):
  return jnp.ones((length,)) * val
# un-jit'd works fine
print(example_fun(5, 4))

bad_example_jit = jit(example_fun)
# this will fail:

# static_argnames tells JAX to recompile on changes at these argument positions:
good_example_jit = jit(example_fun, static_argnames='length')
# first compile
print(good_example_jit(10, 4))
# recompiles
print(good_example_jit(5, 4))

@jit
def f(x):
  print(x)
  y = 2 * x
  print(y)
  return y
print(f(2))

from jax import lax

operand = jnp.array([0.])
print(lax.cond(True, lambda x: x+1, lambda x: x-1, operand))
# --> array([1.], dtype=float32)
print(lax.cond(False, lambda x: x+1, lambda x: x-1, operand))
# --> array([-1.], dtype=float32)

init_val = 0
cond_fun = lambda x: x < 10
body_fun = lambda x: x + 1
print(lax.while_loop(cond_fun, body_fun, init_val))
# --> array(10, dtype=int32)

init_val = 0
start = 0
stop = 10
body_fun = lambda i, x: x + i
print(lax.fori_loop(start, stop, body_fun, init_val))
# --> array(45, dtype=int32)

def cumsum_step(carry, x):
  new_carry = carry + x
  return new_carry, new_carry   # (next state, this step's output)

final, cumulative = lax.scan(cumsum_step, 0.0, jnp.arange(1., 5.))
print(final)
print(cumulative)

def python_check_positive_even(x):
  is_even = x % 2 == 0
  # `and` short-circuits, so when `is_even` is `False`, `x > 0` is not evaluated.
  return is_even and (x > 0)

@jit
def jax_check_positive_even(x):
  is_even = x % 2 == 0
  # `logical_and` does not short circuit, so `x > 0` is always evaluated.
  return jnp.logical_and(is_even, x > 0)

print(python_check_positive_even(24))
print(jax_check_positive_even(24))

x = jnp.array([-1, 2, 5])
print(jax_check_positive_even(x))
