"""Writes crates/pylib/api_names.txt: the public names of the JAX and NumPy modules the
playground binds, from the installed JAX and NumPy. The interpreter reads it to tell a real API
it lacks ("jnp.fft is not supported by the playground yet", "numpy.linalg.eig is not supported
by the playground yet") from a name the library does not have ("module 'jax.numpy' has no
attribute 'foo'").

Run with `python3 tests/jax/api_names.py` (needs jax and numpy); commit the output.
"""

import importlib
import os

import jax
import numpy

MODULES = [
    "jax",
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.nn",
    "jax.nn.initializers",
    "jax.lax",
    "jax.random",
    "jax.tree_util",
    "jax.tree",
    "jax.scipy",
    "jax.scipy.special",
    "jax.checkpoint_policies",
    "numpy",
    "numpy.linalg",
    "numpy.random",
    "numpy.testing",
]

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "crates", "pylib", "api_names.txt")

lines = [f"# Public names per module, from JAX {jax.__version__} and NumPy {numpy.__version__} (tests/jax/api_names.py)."]
for name in MODULES:
    # `jax.checkpoint_policies` is a namespace on `jax`, not a module one can import.
    parent, _, last = name.rpartition(".")
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError:
        module = getattr(importlib.import_module(parent), last)
    names = sorted(n for n in dir(module) if not n.startswith("_"))
    lines.append(f"{name}: {' '.join(names)}")
with open(OUT, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"wrote {len(MODULES)} modules to {os.path.relpath(OUT)}")
