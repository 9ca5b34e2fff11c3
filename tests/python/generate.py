"""Records what CPython prints for each script here, for crates/lang/tests/python.rs.

Run with CPython 3.11 (the version whose messages the playground follows):

    python3 tests/python/generate.py

Writes tests/python/expected.json: per script, its standard output, its standard error
(prints to sys.stderr, warnings; not the traceback), and the last line of the traceback
("Kind: message") when it ends with an uncaught exception, else null.
"""

import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent


def run(path, python=sys.executable, env=None, timeout=60):
    """What running `path` printed: stdout, stderr before any traceback, the traceback's last line."""
    done = subprocess.run([python, path.name], cwd=path.parent, capture_output=True, text=True, timeout=timeout, env=env)
    stderr, error = done.stderr, None
    if "Traceback (most recent call last):" in stderr:
        stderr, _, traceback = stderr.partition("Traceback (most recent call last):")
        error = traceback.strip().splitlines()[-1]
    return {"stdout": done.stdout, "stderr": stderr, "error": error}


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit(f"expected CPython 3.11, got {sys.version.split()[0]}")
    record(HERE, run)


def record(folder, run_one):
    """Runs every script of `folder` but this one and writes what each printed to expected.json."""
    results = {path.stem: run_one(path) for path in sorted(folder.glob("*.py")) if path.name != "generate.py"}
    (folder / "expected.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(results)} scripts recorded")


if __name__ == "__main__":
    main()
