# Source: https://github.com/jax-ml/jax/blob/e70191bd9e67030fdce07ce5118f0380558dc53a/docs/jax-101/04-advanced-autodiff.md (JAX 101 tutorial, "Advanced Automatic Differentiation in JAX", removed from the docs in April 2024)
# License: Apache-2.0
# Changed: MyST notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); the two %timeit lines of the last cell dropped (IPython magics)


import jax

f = lambda x: x**3 + 2*x**2 - 3*x + 1

dfdx = jax.grad(f)

d2fdx = jax.grad(dfdx)
d3fdx = jax.grad(d2fdx)
d4fdx = jax.grad(d3fdx)

print(dfdx(1.))
print(d2fdx(1.))
print(d3fdx(1.))
print(d4fdx(1.))

def hessian(f):
  return jax.jacfwd(jax.grad(f))

import jax.numpy as jnp

def f(x):
  return jnp.dot(x, x)

print(hessian(f)(jnp.array([1., 2., 3.])))

# Value function and initial parameters
value_fn = lambda theta, state: jnp.dot(theta, state)
theta = jnp.array([0.1, -0.1, 0.])

# An example transition.
s_tm1 = jnp.array([1., 2., -1.])
r_t = jnp.array(1.)
s_t = jnp.array([2., 1., 0.])

def td_loss(theta, s_tm1, r_t, s_t):
  v_tm1 = value_fn(theta, s_tm1)
  target = r_t + value_fn(theta, s_t)
  return -0.5 * ((target - v_tm1) ** 2)

td_update = jax.grad(td_loss)
delta_theta = td_update(theta, s_tm1, r_t, s_t)

print(delta_theta)

def td_loss(theta, s_tm1, r_t, s_t):
  v_tm1 = value_fn(theta, s_tm1)
  target = r_t + value_fn(theta, s_t)
  return -0.5 * ((jax.lax.stop_gradient(target) - v_tm1) ** 2)

td_update = jax.grad(td_loss)
delta_theta = td_update(theta, s_tm1, r_t, s_t)

print(delta_theta)

s_grad = jax.grad(value_fn)(theta, s_tm1)
delta_theta_original_calculation = (r_t + value_fn(theta, s_t) - value_fn(theta, s_tm1)) * s_grad

print(delta_theta_original_calculation) # [1.2, 2.4, -1.2], same as `delta_theta`

def f(x):
  return jnp.round(x)  # non-differentiable

def straight_through_f(x):
  # Create an exactly-zero expression with Sterbenz lemma that has
  # an exactly-one gradient.
  zero = x - jax.lax.stop_gradient(x)
  return zero + jax.lax.stop_gradient(f(x))

print("f(x): ", f(3.2))
print("straight_through_f(x):", straight_through_f(3.2))

print("grad(f)(x):", jax.grad(f)(3.2))
print("grad(straight_through_f)(x):", jax.grad(straight_through_f)(3.2))

perex_grads = jax.jit(jax.vmap(jax.grad(td_loss), in_axes=(None, 0, 0, 0)))

# Test it:
batched_s_tm1 = jnp.stack([s_tm1, s_tm1])
batched_r_t = jnp.stack([r_t, r_t])
batched_s_t = jnp.stack([s_t, s_t])

print(perex_grads(theta, batched_s_tm1, batched_r_t, batched_s_t))

dtdloss_dtheta = jax.grad(td_loss)

print(dtdloss_dtheta(theta, s_tm1, r_t, s_t))

almost_perex_grads = jax.vmap(dtdloss_dtheta)

batched_theta = jnp.stack([theta, theta])
print(almost_perex_grads(batched_theta, batched_s_tm1, batched_r_t, batched_s_t))

inefficient_perex_grads = jax.vmap(dtdloss_dtheta, in_axes=(None, 0, 0, 0))

print(inefficient_perex_grads(theta, batched_s_tm1, batched_r_t, batched_s_t))

perex_grads = jax.jit(inefficient_perex_grads)

print(perex_grads(theta, batched_s_tm1, batched_r_t, batched_s_t))

