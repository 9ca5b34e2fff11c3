# More of the standard library: dataclasses, enums, collections, itertools, functools, random.
import collections
import dataclasses
import enum
import functools
import itertools
import operator
import random
import string
import typing
from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price: float = 0.0
    tags: list = field(default_factory=list)
    count: int = field(default=1, repr=False)


i = Item("pen", 1.5)
i.tags.append("office")
print(i, Item("pen", 1.5) == Item("pen", 1.5, []), dataclasses.astuple(i), dataclasses.fields(i)[0].type)
try:
    hash(i)
except TypeError as e:
    print(e)


@dataclass(frozen=True, order=True)
class Key:
    a: int
    b: str = "x"


print(sorted({Key(2), Key(1, "y"), Key(1)}), Key(1) < Key(1, "y"), {Key(1): 5}[Key(1)])


class Shape(enum.Enum):
    CIRCLE = enum.auto()
    SQUARE = enum.auto()

    def describe(self):
        return f"{self.name.lower()}#{self.value}"


print(Shape.CIRCLE.value, Shape.SQUARE.describe(), Shape(2), len(Shape), Shape.CIRCLE in Shape, [s.name for s in Shape])


class Flag(enum.IntEnum):
    A = 1
    B = 2


print(Flag.A + Flag.B, Flag.B > Flag.A, Flag(1) is Flag.A, int(Flag.B), sorted([Flag.B, Flag.A]))
c = collections.Counter(["a", "b", "a", "c", "a"])
print(c, c.most_common(), list(c.elements()), c.total() if hasattr(c, "total") else 5, c - collections.Counter("a"))
dd = collections.defaultdict(int)
for w in "the cat the hat".split():
    dd[w] += 1
print(sorted(dd.items()), dd["dog"], len(dd))
dq = collections.deque(range(5))
dq.rotate(-2)
dq.extendleft([9, 8])
print(dq, dq.count(9), list(reversed(dq)), dq.maxlen)
P = collections.namedtuple("P", "x y z", defaults=[0])
print(P(1, 2), P._make([4, 5, 6]), P(1, 2)._asdict(), P.__name__, P(1, 2, 3) > P(1, 2, 2))
print(list(itertools.pairwise([1, 2, 3])) if hasattr(itertools, "pairwise") else [(1, 2), (2, 3)])
print(list(itertools.combinations_with_replacement("ab", 2)), list(itertools.product("ab", [0, 1])))
print(list(itertools.dropwhile(lambda x: x < 3, [1, 4, 1])), list(itertools.filterfalse(None, [0, 1, 0, 2])))
print(list(itertools.accumulate([1, 2, 3], operator.mul)), list(itertools.accumulate([3, 1, 2], max)))
it1, it2 = itertools.tee([1, 2, 3])
print(list(it1), list(it2), list(itertools.islice("abcdef", 1, 5, 2)))
print(functools.reduce(operator.add, "abc"), functools.partial(int, base=2)("101"))


@functools.lru_cache(maxsize=2)
def sq(n):
    print("computing", n)
    return n * n


print(sq(2), sq(2), sq(3), sq(4), sq(2), sq.cache_info())
sorted_words = sorted(["b", "A", "c"], key=functools.cmp_to_key(lambda a, b: (a.lower() > b.lower()) - (a.lower() < b.lower())))
print(sorted_words, operator.itemgetter(0, 2)("abc"), operator.attrgetter("name")(i), operator.methodcaller("upper")("x"))
random.seed(2024)
print(random.random(), random.randint(0, 10), random.choice([1, 2, 3]), random.sample("abcdef", 2), random.uniform(-1, 1))
print(random.gauss(0, 1), random.normalvariate(1, 2), random.expovariate(1.5), random.betavariate(2, 3) if False else 0)
r = list(range(8))
random.shuffle(r)
print(r, random.choices(range(5), weights=[1, 0, 0, 0, 3], k=4), random.getrandbits(16), random.randrange(10, 20, 3))
print(string.ascii_letters[:5], string.hexdigits, string.Template("$a-$b").substitute(a=1, b=2), string.capwords("hi there"))
T = typing.TypeVar("T")
print(typing.Optional[int], typing.List[int], typing.get_type_hints if False else "hints", T)
print(Shape.TRIANGLE)
