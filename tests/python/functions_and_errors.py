# Functions, closures and the errors CPython raises for wrong calls.
def defaults(a, b=[], *args, c, d=4, **kw):
    b.append(a)
    return a, b, args, c, d, kw


print(defaults(1, c=3), defaults(2, c=3), defaults(1, [0], 5, 6, c=7, e=8))
funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])


def counter():
    n = 0

    def inc(step=1):
        nonlocal n
        n += step
        return n

    return inc


c1, c2 = counter(), counter()
print(c1(), c1(), c1(5), c2(), c1.__name__, counter.__name__)


def outer():
    x = "outer"

    def middle():
        def inner():
            return x

        return inner()

    return middle()


print(outer())
g = 10


def read_global():
    return g * 2


def shadow():
    g = 5
    return g


print(read_global(), shadow(), g)


index_none = None


def posonly(x, /):
    return x


def kwonly(*, k):
    return k


for call in [
    lambda: defaults(),
    lambda: defaults(1),
    lambda: defaults(1, c=2, a=3),
    lambda: posonly(x=1),
    lambda: len(1),
    lambda: int("abc"),
    lambda: [1, 2][5],
    lambda: {"a": 1}["b"],
    lambda: None.attr,
    lambda: 1 / 0,
    lambda: 1 % 0,
    lambda: undefined_thing,
    lambda: "abc".foo(),
    lambda: (1, 2) + [3],
    lambda: 1 < "a",
    lambda: [] < (),
    lambda: iter(5),
    lambda: next(iter([])),
    lambda: int(None),
    lambda: float("x"),
    lambda: {}.pop("k"),
    lambda: [].pop(),
    lambda: "a" * 2.5,
    lambda: sorted([1, "a"]),
    lambda: max([]),
    lambda: dict([(1, 2, 3)]),
    lambda: (x for x in 5),
    lambda: "{:d}".format(1.5),
    lambda: "%d" % "x",
    lambda: round("x"),
    lambda: abs("x"),
    lambda: hash([]),
    lambda: {[]: 1},
    lambda: tuple(1),
    lambda: chr(-1),
    lambda: ord("ab"),
    lambda: divmod(1, 0),
    lambda: range(1.5),
    lambda: [1][index_none],
    lambda: "abc"[10],
    lambda: object().x,
    lambda: type("X", (), {})().missing,
    lambda: kwonly(1),
    lambda: setattr(1, "x", 2),
]:
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__ + ":", e)


def gen():
    try:
        yield 1
    except ValueError as e:
        print("caught in generator:", e)
        yield 2
    finally:
        print("gen finally")


g1 = gen()
print(next(g1), g1.throw(ValueError("boom")))
g1.close()


class Resource:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("open", self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        print("close", self.name, exc_type.__name__ if exc_type else None)
        return False


try:
    with Resource("a") as r1, Resource("b"):
        raise KeyError("inside")
except KeyError as e:
    print("propagated", repr(e))

try:
    try:
        raise ValueError("first")
    finally:
        print("cleanup runs")
except ValueError as e:
    print("after finally:", e)


def early():
    for i in range(3):
        try:
            return i
        finally:
            print("finally in loop", i)


print(early())
try:
    raise ExceptionGroup if False else RuntimeError("plain")
except RuntimeError as e:
    print(e.args)


class MyError(ValueError):
    def __str__(self):
        return "custom message"


try:
    raise MyError("x")
except ValueError as e:
    print(e, repr(e), isinstance(e, MyError), e.args)


def make():
    def inner(a):
        return a

    return inner


class Holder:
    def method(self):
        return lambda: None


print(make().__qualname__, make.__qualname__, Holder.method.__qualname__, Holder().method().__qualname__)
try:
    make()()
except TypeError as e:
    print(e)
try:
    (lambda: [lambda q: q][0]())()()
except TypeError as e:
    print(e)
print(*(f"{k}={v}" for k, v in {"a": 1}.items()))
raise MyError("final")
