# Built-in types and their methods, as programs use them.
xs = [3, 1, 2]
xs.append(5)
xs.extend([0, 4])
xs.insert(1, 9)
print(xs, xs.pop(), xs.pop(0), xs.index(2), xs.count(1), len(xs))
xs.remove(9)
xs.sort()
print(xs, sorted(xs, reverse=True), xs[::-1], xs[1:3], xs[-2:], min(xs), max(xs), sum(xs))
ys = xs.copy()
ys.reverse()
ys += [7]
print(ys, xs == sorted(xs), [1, 2] < [1, 3], [1, 2] * 2, [[0] * 2] * 2)
del ys[0]
del ys[1:3]
print(ys, ys.clear(), ys)
d = {"b": 2, "a": 1}
d["c"] = 3
d.update({"d": 4}, e=5)
print(d, list(d), list(d.keys()), list(d.values()), list(d.items()), d.get("z"), d.get("z", 0))
print(d.pop("a"), d.setdefault("f", 6), d.setdefault("b", 0), "b" in d, len(d), sorted(d.items()))
print({k: v for k, v in sorted(d.items()) if v % 2 == 0}, dict.fromkeys("ab", 0), dict(zip("xy", [1, 2])))
print(d.popitem(), d)
t = (1, 2, 3)
print(t + (4,), t * 2, t[1:], t.index(2), t.count(3), (1,) == (1,), tuple([1, 2]), tuple("ab"))
s = {3, 1, 2}
s.add(4)
s.discard(1)
print(sorted(s), s | {9}, s & {2, 3}, s - {2}, s ^ {3, 10}, {1, 2} <= {1, 2, 3}, frozenset([1, 2]) == {1, 2})
print(len(s), 2 in s, sorted(set("hello")), set(), frozenset(), {1, 2}.union([3]), {1, 2}.issubset(range(5)))
print(list(range(5)), list(range(1, 10, 3)), list(range(5, 0, -2)), range(10)[2:5], len(range(0, 10, 3)), 4 in range(5))
print(abs(-2), abs(2.5), round(3.14159, 2), round(-2.5), round(7, -1), int(-3.7), int("12"), float("inf"), float("-0.0"))
print(isinstance(True, int), True + True, 7 // -2, 7 % -2, -7.5 // 2, 2 ** 10, 2 ** 0.5, 10 / 3, 1e300 * 10)
print(bool([]), bool([0]), bool(0.0), bool("0"), not None, None is None, 1 if [] else 2, [] or "default", 0 and 1)
print(str(12), str(1.5), str([1, "a"]), str((1,)), str({"k": [1]}), repr("a\nb"), repr("'"), str(None), str(-0.0))
print(list(map(str, [1, 2])), list(zip("ab", "cd", "ef")), list(enumerate([5, 6])), any(x > 2 for x in [1, 3]))
print(sorted([(2, "b"), (1, "z"), (2, "a")]), sorted(["bb", "a", "ccc"], key=len), max("apple", "pear", key=len))
print(" ".join(map(str, range(3))), "-".join([]), "a b c".split(" ", 1), "CamelCase".lower(), "x".upper() * 3)
print(chr(65) + chr(97), ord("€"), "€".encode if False else "no bytes", "%5.1f|%-6d|%+d" % (3.14159, 42, 5))
print(divmod(7.5, 2), pow(3, -1, 7) if False else pow(3, 2), 0.1 + 0.2 == 0.3, abs(0.1 + 0.2 - 0.3) < 1e-9)
print(hash(1) == hash(1.0), hash("a") == hash("a"), 1 == 1.0, {1: "int"}[1.0], {True: "t"}[1])
a = b = [1]
b.append(2)
print(a, a is b, a == [1, 2], [1, 2] is [1, 2])
m = [[1, 2], [3, 4]]
print([row[1] for row in m], [x for row in m for x in row], list(zip(*m)), [list(r) for r in zip(*m)])
print(sum([[1], [2]], []), sum(range(101)), sum([0.1] * 3), max([], default=0), min(3, 1, 2))
print(int(True), float(3), complex if False else "no complex", str(3) + "3", int("0x1f", 16), int("101", 2))
print(isinstance([], (list, tuple)), type([]) is list, type(3.0).__name__, type(len).__name__ if False else "ok")
print([i for i in range(10) if i % 2][::2], "".join(reversed("abc")), "abc"[::-1] == "cba", list("abc"))
x = [1, 2, 3]
x[1:2] = [7, 8, 9]
print(x, x[::2])
x[::2] = [0, 0, 0]
print(x)
print({}.get(1, []), [].count(1), "".join([]) == "", "a" * 0, [1] * 0, [] + [], (), ((),))
print(int(2.9), int(-2.9), round(2.9), round(-2.9), round(0.5), round(1.5), round(2.675, 2), round(1234.5678, -2))
print(f"{1/3:.5f}", f"{2/3}", f"{1e16}", f"{123456789.0}", f"{0.000012345}", f"{-1.5e-7}", 1.0 / 3 * 3 == 1.0)
print([1, 2, 3].index(4))
