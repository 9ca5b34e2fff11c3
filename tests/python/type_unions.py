# Types joined with | (PEP 604), as annotations and aliases use them.
Var = str
Atom = Var | float
print(Atom, int | None, Atom | int, (int | str) == (str | int), str | str, type(Atom).__name__)
print(isinstance("x", Atom), isinstance(1, Atom), isinstance(1.5, Atom), isinstance(None, int | None))
print(issubclass(bool, int | str), issubclass(float, int | str))


def f(x: int | None = None) -> list[int] | None:
    return x


print(f(3), f())
print({int | str: "union"}[str | int])
try:
    print(int | 3)
except TypeError as e:
    print("TypeError:", e)

# Classes belong to the module that defines them.
import collections
import dataclasses
print(type(int | str), collections.OrderedDict, dataclasses.Field, collections.OrderedDict.__module__)
