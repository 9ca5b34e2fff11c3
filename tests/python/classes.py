# Classes: attributes, inheritance, super(), properties, static and class methods, dunders.


class Shape:
    count = 0

    def __init__(self, name):
        self.name = name
        Shape.count += 1

    def area(self):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, area={self.area():.2f})"


class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    @property
    def perimeter(self):
        return 2 * (self.w + self.h)

    @staticmethod
    def unit():
        return Rect(1, 1)

    @classmethod
    def square(cls, s):
        return cls(s, s)


class Square(Rect):
    def __init__(self, s):
        super().__init__(s, s)
        self.name = "square"


r = Rect(2, 3)
print(r, r.perimeter, Rect.unit(), Rect.square(4), Square(5))
print(Shape.count, isinstance(Square(1), Rect), issubclass(Square, Shape), issubclass(Rect, Square))
print([c.__name__ for c in Square.__mro__])
try:
    Shape("x").area()
except NotImplementedError as e:
    print("abstract:", type(e).__name__)


class Vec:
    def __init__(self, *xs):
        self.xs = list(xs)

    def __add__(self, other):
        return Vec(*[a + b for a, b in zip(self.xs, other.xs)])

    def __mul__(self, k):
        return Vec(*[a * k for a in self.xs])

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __eq__(self, other):
        return isinstance(other, Vec) and self.xs == other.xs

    def __hash__(self):
        return hash(tuple(self.xs))

    def __lt__(self, other):
        return self.xs < other.xs

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i]

    def __iter__(self):
        return iter(self.xs)

    def __contains__(self, x):
        return x in self.xs

    def __call__(self, i):
        return self.xs[i] * 10

    def __bool__(self):
        return any(self.xs)

    def __str__(self):
        return "<" + ", ".join(str(x) for x in self.xs) + ">"

    __repr__ = __str__


v = Vec(1, 2, 3)
w = Vec(4, 5, 6)
print(v + w, 2 * v, v * 2, -v, v == Vec(1, 2, 3), v != w, len(v), v[1], v[-1], v[1:])
print(list(v), 2 in v, 7 in v, v(2), bool(Vec(0, 0)), sorted([w, v]), max(v, w))
print({v: "a"}[v], len({v, w}))
a, b, c = v
print(a, b, c, sum(v), [x * x for x in v])


class Counter:
    def __init__(self):
        self._n = 0

    @property
    def n(self):
        return self._n

    @n.setter
    def n(self, value):
        if value < 0:
            raise ValueError("negative")
        self._n = value


k = Counter()
k.n = 3
print(k.n, hasattr(k, "n"), getattr(k, "missing", "default"), vars(k))
try:
    k.n = -1
except ValueError as e:
    print("caught", e)
try:
    k.nothing
except AttributeError as e:
    print(e)


class Meta:
    """A docstring."""

    x: int = 3
    y: float

    def __init_subclass__(cls, **kw):
        cls.registered = True


class Child(Meta):
    pass


print(Meta.__doc__, Meta.x, Child.registered, Child.__name__, Child.__bases__, type(Child()).__name__)
print(type(3), type("s"), type(None).__name__, type(type), isinstance(3, (int, float)), object)


class Node:
    __slots__ = ()

    def __init_subclass__(cls):
        pass


class Temp:
    def __init__(self):
        self.values = {}

    def __setitem__(self, key, value):
        self.values[key] = value * 2

    def __delitem__(self, key):
        del self.values[key]

    def __getattr__(self, name):
        return f"dynamic {name}"


t = Temp()
t["a"] = 1
t["b"] = 2
del t["a"]
print(t.values, t.anything)
del t.values
print(t.values)
Rect(1, 2).undefined
