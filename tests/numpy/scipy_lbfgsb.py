"""scipy.optimize's L-BFGS-B: minimize(method='L-BFGS-B') and minimize choosing it for bounds,
fmin_l_bfgs_b with a gradient, with (f, g) from one function and with forward differences (from
float64, integer and float32 starts, the last as a notebook's fmin_l_bfgs_b(lambda x: ...,
approx_grad=True) call makes it), bounds active at the solution, Bounds, variables fixed by
bounds, the iteration and evaluation limits, a callback that stops the run, a line search that
fails, and a JAX function with jax.grad. The playground takes SciPy's steps, so iteration and
evaluation counts are printed as they are; values are rounded where BLAS's rounding could show."""
import numpy as np
from scipy.optimize import Bounds, fmin_l_bfgs_b, minimize

import jax
import jax.numpy as jnp


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rosen_der(x):
    inner = x[1:-1]
    g = np.zeros_like(x)
    g[1:-1] = 200 * (inner - x[:-2] ** 2) - 400 * (x[2:] - inner ** 2) * inner - 2 * (1 - inner)
    g[0] = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0])
    g[-1] = 200 * (x[-1] - x[-2] ** 2)
    return g


def show(res, digits=6):
    print(np.round(res.x, digits), round(float(res.fun), 8), res.nit, res.nfev, res.njev, res.status, res.success,
          res.message)


show(minimize(rosen, [-1.2, 1.0], method="L-BFGS-B", jac=rosen_der))
show(minimize(lambda x: (rosen(x), rosen_der(x)), np.full(10, -0.3), jac=True, method="L-BFGS-B",
              options={"maxcor": 5}))
show(minimize(rosen, [1.3, 0.7, 0.8, 1.9, 1.2], method="L-BFGS-B"), 4)
show(minimize(rosen, [1.3, 0.7, 0.8, 1.9, 1.2], method="L-BFGS-B", jac="2-point"), 4)
show(minimize(rosen, [1.3, 0.7, 0.8, 1.9, 1.2], method="L-BFGS-B", jac="3-point"), 4)

# Bounds active at the solution; no method given, so L-BFGS-B.
res = minimize(rosen, [-1.2, 1.0], jac=rosen_der, bounds=[(-2, 0.5), (0, None)])
show(res)
print(np.round(res.jac, 6), res.hess_inv, sorted(res.keys()))
show(minimize(rosen, np.linspace(-1, 1.5, 10), jac=rosen_der, bounds=[(-1.5, 0.8)] * 10))
bounds = Bounds(np.full(4, -0.5), [0.7, 0.7, 0.6, np.inf])
show(minimize(rosen, np.full(4, 0.1), bounds=bounds), 5)

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
b = np.array([1.0, -2.0, 3.0])


def quad(x):
    return 0.5 * x @ A @ x - b @ x


res = minimize(quad, np.zeros(3), jac=lambda x: A @ x - b, method="L-BFGS-B")
show(res)
print(np.round(res.hess_inv.todense(), 3), np.round(res.hess_inv @ np.ones(3), 3))
show(minimize(quad, np.zeros(3), jac=lambda x: A @ x - b, bounds=[(0, None), (None, -1), (0, 1)]))
# A variable fixed by its bounds is taken out when differencing; all fixed: nothing to do.
res = minimize(quad, np.zeros(3), bounds=[(0.3, 0.3), (None, -1), (0, 1)])
show(res)
print(np.round(res.jac, 4), res.hess_inv)
res = minimize(quad, np.zeros(3), bounds=[(1, 1), (2, 2), (0, 0)])
print(res.x, res.fun, res.success, res.message, res.nfev)

# The limits: maxiter, maxfun (counting the differences' calls), tol.
show(minimize(rosen, np.linspace(-1, 1.5, 10), jac=rosen_der, method="L-BFGS-B", options={"maxiter": 7}), 4)
res = minimize(rosen, np.linspace(-1, 1.5, 10), method="L-BFGS-B", options={"maxfun": 50})
print(np.round(res.x, 3), round(float(res.fun), 4), res.nit, res.nfev, res.njev, res.status, res.message)
show(minimize(rosen, [-1.2, 1.0], jac=rosen_der, method="L-BFGS-B", tol=1e-12))

seen = []
res = minimize(rosen, np.linspace(-2, 2, 6), jac=rosen_der, method="L-BFGS-B", callback=lambda xk: seen.append(xk))
print(len(seen), res.nit, np.round(seen[0], 4))


def stop_below_one(intermediate_result):
    if intermediate_result.fun < 1:
        raise StopIteration


res = minimize(rosen, np.linspace(-2, 2, 6), jac=rosen_der, bounds=[(-3, 3)] * 6, callback=stop_below_one)
print(res.success, res.status, res.message, res.nit, round(float(res.fun), 4))

# A gradient of the wrong sign: the line search fails at once.
res = minimize(lambda x: (np.sum(x ** 2), -2 * x), np.array([1.0, 2.0]), jac=True, method="L-BFGS-B")
print(res.x, res.fun, res.nit, res.nfev, res.status, res.success, repr(res.message))


def physics(x, target):
    y = np.array([x[0], x[1] * x[1]])
    return np.sum(np.square(y - target))


# fmin_l_bfgs_b: approx_grad with an integer start, then float32 start and target (the
# function then sees float32 x, and the differences take float32's larger step).
x, f, d = fmin_l_bfgs_b(lambda x: physics(x, np.array([2, 2])), [3, 3], approx_grad=True)
print(x, f < 1e-12, sorted(d), d["task"], d["funcalls"], d["nit"], d["warnflag"], np.abs(d["grad"]) < 1e-5)
x, f, d = fmin_l_bfgs_b(lambda x: physics(x, np.array([2.1, 6.3], dtype=np.float32)),
                        np.array([3, 3], dtype=np.float32), approx_grad=True)
print(x, type(f).__name__, round(float(f), 9), d["task"], d["funcalls"], d["nit"])
x, f, d = fmin_l_bfgs_b(lambda x: (rosen(x), rosen_der(x)), np.array([-1.2, 1.0]))
print(x, round(f, 10), d["funcalls"], d["nit"], d["task"])
x, f, d = fmin_l_bfgs_b(rosen, np.zeros(6), fprime=rosen_der, bounds=[(None, 0.5)] * 3 + [(0.2, 2)] * 3, m=4)
print(np.round(x, 6), round(f, 6), d["funcalls"], d["nit"], d["task"])
X, Y = np.arange(10.0), 2 * np.arange(10.0) + 3
x, f, d = fmin_l_bfgs_b(lambda p, x, y: np.sum((y - p[0] * x - p[1]) ** 2), np.array([0.0, 1.0]), args=(X, Y),
                        approx_grad=True, bounds=[(0, 5), (5, 10)])
print(np.round(x, 6), round(f, 6), d["funcalls"], d["nit"], d["task"])
x, f, d = fmin_l_bfgs_b(rosen, np.linspace(-1, 1.5, 10), fprime=rosen_der, maxiter=5)
print(d["warnflag"], d["task"], d["nit"])

for bad in ([(1, 0), (0, 1)], [(0, 1)]):
    try:
        fmin_l_bfgs_b(rosen, np.zeros(2), fprime=rosen_der, bounds=bad)
    except ValueError as e:
        print("ValueError:", e)

# A JAX function and its jax.grad (float32 values and gradients).
loss = jax.jit(lambda w: jnp.sum((w - jnp.array([1.0, -2.0, 0.5])) ** 2) + 0.1 * jnp.sum(w ** 4))
res = minimize(loss, np.zeros(3), jac=jax.jit(jax.grad(loss)), bounds=[(0, 0.8), (-1, 1), (None, None)])
print(np.round(res.x, 4), res.success, res.message)
