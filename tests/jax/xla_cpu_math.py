"""Generates tests/jax/xla_cpu_math.json: float32 inputs and what JAX's CPU backend returns for
exp, log, log1p, expm1, exp2, tanh, erf and logistic, where the platform's libm returns
something else (so a test over them fails if the reference evaluator goes back to libm), plus
special values. Sums of float32 arrays too, in the shapes whose order XLA arranges in windows.

Run with `python3 tests/jax/xla_cpu_math.py` (needs jax[cpu] and numpy, on x86-64 Linux:
it calls glibc's float functions through ctypes to find the inputs where they differ).
"""

import ctypes
import json
import os

import jax
import jax.numpy as jnp
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PER_FUNCTION = 200
LIBM = ctypes.CDLL("libm.so.6")


def libm(name):
    f = getattr(LIBM, name)
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return lambda x: np.float32(f(float(x)))


def logistic(x):
    return np.float32(1) / (np.float32(1) + libm("expf")(-x))


FUNCTIONS = {
    # name: (JAX function, libm's counterpart, range of the uniform inputs)
    "exp": (jnp.exp, libm("expf"), (-90, 90)),
    "log": (jnp.log, libm("logf"), (0, 1000)),
    "log1p": (jnp.log1p, libm("log1pf"), (-1, 10)),
    "expm1": (jnp.expm1, libm("expm1f"), (-20, 20)),
    "exp2": (jnp.exp2, libm("exp2f"), (-130, 130)),
    "tanh": (jnp.tanh, libm("tanhf"), (-12, 12)),
    "erf": (jax.scipy.special.erf, libm("erff"), (-5, 5)),
    "logistic": (jax.nn.sigmoid, logistic, (-90, 90)),
}
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 1e-39, -1e-39, 3e-4, 0.5, -0.5, 20.0, -20.0, 88.0, 88.8, -87.5,
                    -103.0, 1e30, -1e30, np.inf, -np.inf, np.nan], dtype=np.float32)
SUMS = [((33,), (0,)), ((100,), (0,)), ((1000,), (0,)), ((3000,), (0,)), ((3, 40, 5), (1, 2)),
        ((100, 4), (0,)), ((4, 100), (1,)), ((40, 40), (0,)), ((2, 33, 34), (0, 2)), ((300, 10), (0,))]


def bits(a):
    return [int(v) for v in np.asarray(a, dtype=np.float32).reshape(-1).view(np.uint32)]


def main():
    rng = np.random.default_rng(2026)
    functions = {}
    for name, (jax_fn, libm_fn, (lo, hi)) in FUNCTIONS.items():
        pool = np.concatenate([rng.uniform(lo, hi, 4000), rng.standard_normal(2000), rng.standard_normal(1000) * 1e-3])
        pool = pool.astype(np.float32)
        want = np.asarray(jax.jit(jax_fn)(pool))
        differs = [i for i, (x, y) in enumerate(zip(pool, want)) if libm_fn(x).view(np.uint32) != y.view(np.uint32)]
        x = np.concatenate([pool[differs[:PER_FUNCTION]], SPECIAL])
        functions[name] = {"x": bits(x), "y": bits(jax.jit(jax_fn)(x)), "libm_differs": len(differs), "of": len(pool)}
    sums = []
    for shape, axes in SUMS:
        x = rng.standard_normal(shape).astype(np.float32) * 10
        y = jax.jit(lambda a: jnp.sum(a, axis=axes))(x)
        sums.append({"shape": list(shape), "axes": list(axes), "x": bits(x), "y": bits(y)})
    out = {"jax": jax.__version__, "functions": functions, "sums": sums}
    with open(os.path.join(HERE, "xla_cpu_math.json"), "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    for name, f in functions.items():
        print(f"{name}: libm differs from JAX on {f['libm_differs']} of {f['of']}")


if __name__ == "__main__":
    main()
