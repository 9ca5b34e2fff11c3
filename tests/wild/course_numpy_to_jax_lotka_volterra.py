# Source: https://github.com/IanQS/numpy_to_jax/blob/efe090d340fb77708dd6a65e70b3465a4a42e061/case_studies/lotka-volterra/jax_lotka-volterra.ipynb (Ian Quah, NumPy-to-JAX workshop)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print())

import numpy as np
import jax.numpy as jnp
import jax
from functools import partial

"""
Notes:
    1) We added in partial function to pass the static_argnames to the jit 
    2) we added in static_argnames to specify that these are constant and should not result in a recompilation
"""
@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
    x, y,
    alpha, beta, gamma, delta, dt
):
    
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y
    
    x_new = x + dxdt * dt
    y_new = y + dydt * dt
    
    return x_new, y_new

# Parameters
alpha = 1.1
beta = 0.4
gamma = 0.4
delta = 0.1
dt = 0.1
num_steps = 20

lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

xs = []
ys = []
for i in range(num_steps):
    x_new, y_new = lotka_volterra_step(
        x_prev, y_prev
    )

    xs.append(x_new)
    ys.append(y_new)

    x_prev = x_new
    y_prev = y_new

for (x, y) in zip(xs, ys):
    print(f"x: {x:.3f}, y: {y:.3f}")

@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
    _, state,
    alpha, beta, gamma, delta, dt
):
    x, y = state 
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y
    
    x_new = x + dxdt * dt
    y_new = y + dydt * dt
    
    return x_new, y_new

lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

# If we're only concerned with having the last value, we can do the following
x, y = jax.lax.fori_loop(
    lower=0, upper=num_steps,
    body_fun=lotka_volterra_step, init_val=((x_prev, y_prev))
)
print(f"x: {x:.3f}, y: {y:.3f}")

@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
        trajectory_idx, state,
        alpha, beta, gamma, delta, dt
):
    x, y = state[trajectory_idx]
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y

    x_new = x + dxdt * dt
    y_new = y + dydt * dt
    
    state = state.at[trajectory_idx + 1].set([x_new, y_new])
    return state

lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

trajectory = jnp.zeros((num_steps+1, 2))
trajectory = trajectory.at[0].set([x_prev, y_prev])

# If we're only concerned with having the last value, we can do the following
trajectory = jax.lax.fori_loop(
    lower=0, upper=num_steps,
    body_fun=lotka_volterra_step, init_val=(trajectory)
)

for i in range(len(np.asarray(trajectory))):
    x = trajectory[i, 0]
    y = trajectory[i, 1]
    print(f"x: {x:.3f}, y: {y:.3f}")

@partial(jax.jit, static_argnames=["alpha", "beta", "gamma", "delta", "dt"])
def _lotka_volterra_step(
        state, _,
        alpha, beta, gamma, delta, dt
):
    x, y = state
    dxdt = alpha * x - beta * x * y
    dydt = delta * x * y - gamma * y

    x_new = x + dxdt * dt
    y_new = y + dydt * dt

    return (x_new, y_new), (x_new, y_new)

lotka_volterra_step = partial(
    _lotka_volterra_step,
    alpha=alpha, beta=beta, gamma=gamma, delta=delta, dt=dt
)

# Initial populations
x_prev = 10.0
y_prev = 5.0

final_state, trajectory = jax.lax.scan(
    f=lotka_volterra_step,
    init=(x_prev, y_prev),
    xs=None,
    length=num_steps
)

print(np.asarray(final_state))

for (_x, _y) in np.asarray(trajectory).T:
    print(_x, _y)
