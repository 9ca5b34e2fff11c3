"""Generates tests/wild/expected.json: what real JAX prints for each program in tests/wild/.

The programs are real public JAX programs (see README.md), each a .py file with a
`# Source:` / `# License:` / `# Changed:` header. Each is run twice in this process with real
JAX, reusing tests/jax/generate.py's machinery: at `highest` matmul precision (full float32)
and at DEFAULT as a TPU computes it (the operands of every DEFAULT dot_general, convolution
and einsum rounded to bfloat16). A program that raises records the exception instead.
Lines matching a program's `# Ignore lines matching: <regex>` header (wall-clock times,
object addresses, device names) are dropped from both outputs.

Run with `python3 tests/wild/generate.py` (needs jax[cpu] and numpy; the programs also use
scipy). `python3 tests/wild/generate.py NAME...` reruns only the programs named, keeping the
others' results as the file has them.
"""

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "jax"))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import generate as fixtures  # noqa: E402  (tests/jax/generate.py)

IGNORE_HEADER = "# Ignore lines matching: "


def programs():
    """(name, file name, source) for every program, sorted by name."""
    found = []
    for file_name in sorted(os.listdir(HERE)):
        if file_name.endswith(".py") and file_name != "generate.py":
            with open(os.path.join(HERE, file_name)) as f:
                found.append((file_name[:-3], file_name, f.read()))
    return found


def ignore_pattern(source):
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        if line.startswith(IGNORE_HEADER):
            return re.compile(line[len(IGNORE_HEADER):])
    return None


def filtered(output, pattern):
    if pattern is None:
        return output
    return "".join(line for line in output.splitlines(keepends=True) if not pattern.search(line))


def run(source, default_precision):
    """One run with global state reset around it: a program may enable x64, and a program
    that parses its command line must not see this script's arguments."""
    jax.config.update("jax_enable_x64", False)
    saved_argv = sys.argv
    sys.argv = ["program.py"]
    try:
        return fixtures.run(source, default_precision=default_precision)
    finally:
        sys.argv = saved_argv
        jax.config.update("jax_enable_x64", False)


def main():
    only = set(sys.argv[1:])
    path = os.path.join(HERE, "expected.json")
    all_programs = programs()
    kept = {}
    if only:
        unknown = only - {name for name, _, _ in all_programs}
        if unknown:
            sys.exit(f"no programs named {sorted(unknown)}")
        with open(path) as f:
            kept = {p["name"]: p for p in json.load(f)["programs"]}
    results = []
    for name, file_name, source in all_programs:
        if only and name not in only and name in kept:
            results.append(kept[name])
            continue
        print(f"running {name}", file=sys.stderr)
        pattern = ignore_pattern(source)
        highest, error = run(source, default_precision=False)
        default, default_error = run(source, default_precision=True)
        results.append({
            "name": name,
            "source_file": file_name,
            "highest": filtered(highest, pattern),
            "default": filtered(default, pattern),
            "error": error,
            # An exception raised only when the matmuls are rounded (an assert on
            # allclose, say) is recorded too, so that both runs are fully described.
            **({"default_error": default_error} if default_error != error else {}),
        })
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "numpy_version": np.__version__,
                   "programs": results}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(results)} programs to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
