# Source: https://github.com/forgi86/jax-tutorial/blob/2504bc2429737cc752a1459bd1e0b90ce08dd36e/gallery/ordinary_differential_equations/odes_manual.ipynb (Marco Forgione, JAX tutorial)
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order); matplotlib import and plotting calls dropped; prints of the simulated trajectories' final states added

import jax
import jax.numpy as jnp
import jax.random as jr

seed = 1234
key = jr.key(seed)
x0key, ukey = jr.split(key, 2) # keys for initial state & input signal

def f_xu(x, u, args):
    """ Toy system: first-order dynamics"""
    a = -0.1
    b = 1.0
    return a*x + b*u

# data
nx = 1 # number of states
nu = 1
dataset_size = 2_000 # number of sequences in the dataset
seq_len = 1_000 # length of each sequence (number of time steps, sampling time is irregular)
dt = 1e-1

ts = jnp.arange(seq_len) * dt
x0 = jr.uniform(x0key, (nx,))
u = jr.uniform(ukey, (seq_len, nu), minval=-1, maxval=1)

def discretize_rk4(fun_ct, dt):
    def fun_rk(x, u, args):
        dt2 = dt/2
        k1 = fun_ct(x, u, args)
        k2 = fun_ct(x + dt2 * k1, u, args)
        k3 = fun_ct(x + dt2 * k2, u, args)
        k4 = fun_ct(x + dt * k3, u, args)
        dx = dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        x_new = x + dx
        return x_new, x
    return fun_rk

def discretize_euler(fun_ct, dt):
    def fun_euler(x, u, args):
        k1 = fun_ct(x, u, args)
        dx = dt * k1
        x_new = x + dx
        return x_new, x
    return fun_euler

def solve_euler(fn_ct, ts, x0, u, args):
    fn_rk = discretize_euler(fn_ct, ts)
    _, x_sim = jax.lax.scan(lambda x, u: fn_rk(x, u, args), x0, u)
    return x_sim

def solve_rk4(fn_ct, ts, x0, u, args):
    fn_rk = discretize_rk4(fn_ct, ts)
    _, x_sim = jax.lax.scan(lambda x, u: fn_rk(x, u, args), x0, u)
    return x_sim

x_fe = solve_euler(f_xu, dt, x0, u, None)
x_rk = solve_rk4(f_xu, dt, x0, u, None)

# check what the manually implemented forward euler does.
step = 100
print(x_fe[step] - x_fe[step-1] - dt * f_xu(x_fe[step-1], u[step-1], None))
print(x_fe.shape, x_fe[-1], x_rk[-1])

