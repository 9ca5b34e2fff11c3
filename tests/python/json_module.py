# json: dumps with its options, loads back, and the errors CPython gives.
import json
import sys

data = {"name": "run-1", "lr": 0.001, "steps": 1000, "layers": [784, 256, 10], "ok": True, "note": None,
        "ratio": 1 / 3, "tags": ("a", "b"), "nested": {"z": 1, "a": [1.5, -2e-7, 1e22]}}
print(json.dumps(data))
print(json.dumps(data, indent=2, sort_keys=True))
print(json.dumps(data["layers"], separators=(",", ":")), json.dumps("tab\there \"quoted\" é ü 日本"))
print(json.dumps("é", ensure_ascii=False), json.dumps({1: "int key", 2.5: "float", True: "bool", None: "none"}))
print(json.dumps([float("nan"), float("inf"), -float("inf")]), json.dumps([]), json.dumps({}), json.dumps([[]], indent=4))
back = json.loads(json.dumps(data))
print(back == {**data, "tags": ["a", "b"]}, type(back["lr"]).__name__, back["nested"]["a"])
print(json.loads('{"a": [1, 2.0, "x\\u00e9\\n", true, false, null], "b": {"c": -3e2}}'))
print(json.loads(' [1, 2] ', parse_float=str), json.loads('{"a": 1}', object_pairs_hook=list), json.loads('"\\ud83d\\ude00"') == "\U0001F600")
json.dump({"to": "stdout"}, sys.stdout, indent=1)
print()
print(json.dumps({"x": object()}, default=lambda o: "<obj>"))
for bad in ['{"a": 1,}', '[1, 2', '{"a" 1}', '', 'nul', '[1] x', '{1: 2}', '"abc']:
    try:
        json.loads(bad)
    except json.JSONDecodeError as e:
        print(type(e).__name__, e, e.pos, isinstance(e, ValueError))
for bad in [{"s": {1, 2}}, {(1, 2): 3}]:
    try:
        json.dumps(bad)
    except TypeError as e:
        print("TypeError", e)
try:
    json.dumps(float("nan"), allow_nan=False)
except ValueError as e:
    print("ValueError", e)
a = []
a.append(a)
try:
    json.dumps(a)
except ValueError as e:
    print("ValueError", e)
