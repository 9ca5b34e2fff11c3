# More class behaviour: comparisons, reflected operators, repr in containers, class attributes.
import functools


@functools.total_ordering
class Money:
    currency = "EUR"

    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self.cents == other.cents

    def __lt__(self, other):
        return self.cents < other.cents

    def __hash__(self):
        return hash(self.cents)

    def __add__(self, other):
        if isinstance(other, int):
            return Money(self.cents + other)
        return Money(self.cents + other.cents)

    def __radd__(self, other):
        return self + other

    def __repr__(self):
        return f"Money({self.cents})"

    def __format__(self, spec):
        return format(self.cents / 100, spec) + " " + self.currency


a, b = Money(150), Money(250)
print(a < b, a <= b, a > b, a >= b, a == Money(150), a != b, a == 3, sorted([b, a]), max(a, b))
print(sum([a, b]), a + 5, 5 + a, [a, b], {"k": a}, (a,), f"{a:.2f}", str(a), Money.currency, a.currency)
Money.currency = "USD"
print(f"{b:.1f}", b.__class__.__name__, type(b) is Money, isinstance(b, object))


class Base:
    def __init__(self):
        self.log = []

    def hello(self):
        self.log.append("base")
        return "base"


class A(Base):
    def hello(self):
        self.log.append("A")
        return "A>" + super().hello()


class B(Base):
    def hello(self):
        self.log.append("B")
        return "B>" + super().hello()


class C(A, B):
    def hello(self):
        return "C>" + super().hello()


c = C()
print(c.hello(), c.log, [k.__name__ for k in C.__mro__], C.__bases__ == (A, B))


class Stack(list):
    def push(self, x):
        self.append(x)

    def peek(self):
        return self[-1]


st = Stack([1])
st.push(2)
print(st, st.peek(), len(st), isinstance(st, list), st + [3], sum(st), type(st).__name__)


class Registry(dict):
    def __missing__(self, key):
        return f"<{key}>"


r = Registry(a=1)
print(r["a"], r["b"], len(r), r)


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __iter__(self):
        yield self.x
        yield self.y

    def __eq__(self, other):
        return tuple(self) == tuple(other)


p = Point(1, 2)
x, y = p
print(x, y, list(p), p == Point(1, 2), p != Point(2, 1), p.__dict__, hasattr(p, "x"), getattr(p, "z", None))
setattr(p, "z", 3)
print(p.z, vars(p))
delattr(p, "z")
print(hasattr(p, "z"))
try:
    hash(p)
except TypeError as e:
    print(e)


class Temperature:
    def __init__(self):
        self._c = 0.0

    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32

    @fahrenheit.setter
    def fahrenheit(self, f):
        self._c = (f - 32) * 5 / 9


t = Temperature()
t.fahrenheit = 212
print(round(t._c, 6), t.fahrenheit)
try:
    Temperature.missing
except AttributeError as e:
    print(e)


class Counted:
    instances = 0

    def __new__(cls, *args):
        cls.instances += 1
        return super().__new__(cls)

    def __init__(self, name):
        self.name = name


Counted("a")
Counted("b")
print(Counted.instances)


class Meta(type):
    def __repr__(cls):
        return f"<Meta {cls.__name__}>"


class WithMeta(metaclass=Meta):
    pass


print(WithMeta, type(WithMeta).__name__, isinstance(WithMeta, Meta))
print(Point(1, 2) == (1, 2))
Point(1, 2) < Point(2, 3)
