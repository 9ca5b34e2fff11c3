"""scipy.optimize on the host: root (method 'hybr', MINPACK's Powell hybrid method: a dog-leg
trust region with Broyden updates) and minimize (BFGS with a strong-Wolfe line search), with
and without Jacobians, on problems whose Jacobian is singular at the start, with a zero
residual, and with a JAX function as the residual. Results are rounded: the playground's steps
are not SciPy's to the last digit (see the module's docstring), its roots and minima are."""
import numpy as np
from scipy import optimize
from scipy.optimize import minimize, root

import jax
import jax.numpy as jnp


def equations(x):
    return np.array([x[0] ** 2 + x[1] - 37, x[0] - x[1] ** 2 - 5])


def jacobian(x):
    return np.array([[2 * x[0], 1.0], [1.0, -2 * x[1]]])


sol = root(equations, [1.0, 1.0], jac=jacobian)
print(np.round(sol.x, 6), sol.success, sol.status, sol.message, type(sol).__name__, sol["success"])
sol = optimize.root(lambda x: np.array([np.exp(x[0]) - 2, x[1] ** 3 - 8 + x[0]]), [0.0, 0.0])
print(np.round(sol.x, 6), sol.success, np.abs(sol.fun) < 1e-6)
sol = root(lambda x: np.cos(x) - x, 1.0)
print(np.round(sol.x, 6), sol.x.shape)
sol = root(lambda x: (x - np.arange(3.0)) * (x + 1.0), np.array([0.5, 0.7, 3.0]))
print(np.round(sol.x, 6), sol.success)


@jax.jit
def system(x):
    return jnp.array([x[0] ** 2 + x[1] - 37, x[0] - x[1] ** 2 - 5])


sol = root(system, jnp.array([1.0, 1.0]), jac=jax.jit(jax.jacfwd(system)))
print(np.round(sol.x, 4), np.abs(system(sol.x)) < 1e-4)

def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rosen_der(x):
    inner = x[1:-1]
    g = np.zeros_like(x)
    g[1:-1] = 200 * (inner - x[:-2] ** 2) - 400 * (x[2:] - inner ** 2) * inner - 2 * (1 - inner)
    g[0] = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0])
    g[-1] = 200 * (x[-1] - x[-2] ** 2)
    return g


res = minimize(rosen, np.array([1.3, 0.7, 0.8, 1.9, 1.2]), method="BFGS", jac=rosen_der)
print(np.round(res.x, 4), res.success, round(res.fun, 8), res.message)
res = minimize(lambda x: (x[0] - 3) ** 2 + 10 * (x[1] + 1) ** 2 + x[0] * x[1], [0.0, 0.0])
print(np.round(res.x, 5), round(res.fun, 6), res.jac.shape, res.hess_inv.shape)
loss = jax.jit(lambda w: jnp.sum((w - jnp.array([1.0, -2.0, 0.5])) ** 2) + 0.1 * jnp.sum(w ** 4))
res = minimize(loss, np.zeros(3), jac=jax.jit(jax.grad(loss)))
print(np.round(res.x, 4))
