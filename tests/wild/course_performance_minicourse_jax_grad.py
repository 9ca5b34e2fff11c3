# Source: https://github.com/henryiii/python-performance-minicourse/blob/49f50b4bc5886131cc6b07af138ab8296dcc2cdd/06b_jax.ipynb (Henry Schreiner, Python performance minicourse)
# License: none stated (see source)
# Changed: notebook converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print()); the 2 cells whose error the text demonstrates (`broken(2)` with a traced `if`, and item assignment `jarr[...] = 1`) dropped

import jax
import jax.numpy as jnp
import numpy as np

def f(x):
    return x**3 + x**2 + x

print(f(1.0))

fp = jax.grad(f)

print(fp(1.0))

fpp = jax.grad(fp)

print(fpp(1.0))

def f(x):
    print(f"{x = }")
    y = x**2
    print(f"{y = }")
    return y

f_jit = jax.jit(f)

print(f_jit(2))

print(f_jit(2))

print(f_jit(1.0))

print(f_jit(1.0))

print(f_jit(1))

@jax.jit
def broken(x):
    if x == 3:
        return x**3
    return x

j1 = jnp.zeros((3, 3))
j2 = j1.at[np.diag(np.ones(3, dtype=bool))].set(1)
print(j2)
