#!/bin/bash
# Seeds the fuzz corpora from the repository's own inputs: scripts (examples, the error corpus,
# the JAX fixtures) and assembly/binaries (the instruction-set test files). Run from fuzz/.
set -e
mkdir -p corpus/script corpus/asm corpus/binary corpus/jit
cp ../examples/*.py ../tests/errors/*.py ../tests/python/*.py ../tests/numpy/*.py ../tests/wild/*.py corpus/script/
rm -f corpus/script/generate.py
python3 - <<'PY'
import json
for i, f in enumerate(json.load(open("../tests/jax/fixtures.json"))["fixtures"]):
    open(f"corpus/script/fixture_{i}.py", "w").write(f["script"])
PY
find .. -name '*.tasm' -not -path '*/target/*' -not -path '*/fuzz/*' -exec cp {} corpus/asm/ \;
# Every program the examples compile to, one file each (the listing separates them by "# name").
for f in ../examples/*.py; do
  cargo run -q --manifest-path ../Cargo.toml -p cli -- compile "$f" --emit asm 2>/dev/null |
    awk -v base="corpus/asm/$(basename "$f" .py)" '/^# /{n++} {print > (base "_" n ".tasm")}'
done
for f in corpus/asm/*.tasm; do
  cargo run -q --manifest-path ../Cargo.toml -p cli -- asm "$f" -o "corpus/binary/$(basename "$f" .tasm).tbin" 2>/dev/null || true
done
