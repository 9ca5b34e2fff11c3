"""Records what real NumPy prints for each script here, for the playground's `import numpy as np`.

Each script is run by a Python with NumPy 2 and JAX installed, by default the virtual
environment at /tmp/jaxenv (CPython 3.11, numpy 2.4.6, jax 0.10.2); set PYTHON to use another:

    python3 tests/numpy/generate.py
    PYTHON=/path/to/python python3 tests/numpy/generate.py

Writes tests/numpy/expected.json: per script, its standard output, its standard error
(prints to sys.stderr, warnings; not the traceback), and the last line of the traceback
("Kind: message") when it ends with an uncaught exception, else null.
"""

import json
import os
import pathlib
import subprocess

HERE = pathlib.Path(__file__).parent
PYTHON = os.environ.get("PYTHON", "/tmp/jaxenv/bin/python")


def run(path):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run([PYTHON, path.name], cwd=HERE, capture_output=True, text=True, timeout=120, env=env)
    stderr, error = done.stderr, None
    if "Traceback (most recent call last):" in stderr:
        stderr, _, traceback = stderr.partition("Traceback (most recent call last):")
        error = traceback.strip().splitlines()[-1]
    return {"stdout": done.stdout, "stderr": stderr, "error": error}


def main():
    results = {path.stem: run(path) for path in sorted(HERE.glob("*.py")) if path.name != "generate.py"}
    (HERE / "expected.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(results)} scripts recorded")


if __name__ == "__main__":
    main()
