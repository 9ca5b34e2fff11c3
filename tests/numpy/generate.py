"""Records what real NumPy prints for each script here, for the playground's `import numpy as np`.

Each script is run by a Python with NumPy 2 and JAX installed, by default the virtual
environment at /tmp/jaxenv (CPython 3.11, numpy 2.4.6, jax 0.10.2); set PYTHON to use another:

    python3 tests/numpy/generate.py
    PYTHON=/path/to/python python3 tests/numpy/generate.py

Writes tests/numpy/expected.json: per script, its standard output, its standard error
(prints to sys.stderr, warnings; not the traceback), and the last line of the traceback
("Kind: message") when it ends with an uncaught exception, else null.
"""

import importlib.util
import os
import pathlib

HERE = pathlib.Path(__file__).parent
PYTHON = os.environ.get("PYTHON", "/tmp/jaxenv/bin/python")

# tests/python's recorder, shared: how a script is run and what of it is kept.
_spec = importlib.util.spec_from_file_location("python_generate", HERE.parent / "python" / "generate.py")
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)


def run(path):
    return recorder.run(path, python=PYTHON, env=dict(os.environ, JAX_PLATFORMS="cpu"), timeout=120)


def main():
    recorder.record(HERE, run)


if __name__ == "__main__":
    main()
