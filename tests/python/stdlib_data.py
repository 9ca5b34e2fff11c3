# collections, dataclasses, typing, enum, abc, copy.
import collections
import copy
import dataclasses
import enum
from abc import ABC, abstractmethod
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

Point = namedtuple("Point", ["x", "y"])
p = Point(1, y=2)
print(p, p.x, p[1], p._asdict(), p._replace(x=5), Point._fields, tuple(p), p == (1, 2))
x, y = p
print(x + y, len(p), isinstance(p, tuple))


class Pair(NamedTuple):
    left: int
    right: str = "r"

    def both(self):
        return f"{self.left}{self.right}"


pp = Pair(3)
print(pp, pp.both(), pp._replace(right="z"), Pair._fields, pp[0])

d = defaultdict(list)
for k, v in [("a", 1), ("b", 2), ("a", 3)]:
    d[k].append(v)
print(dict(d), d["missing"], sorted(d))
c = Counter("abracadabra")
print(c.most_common(2), c["a"], c["z"], sum(c.values()))
c.update("aaz")
print(c.most_common(1), Counter([1, 1, 2]) + Counter([2]))
od = OrderedDict()
od["z"] = 1
od["a"] = 2
od.move_to_end("z")
print(list(od), od.popitem(), od)
q = deque([1, 2, 3], maxlen=4)
q.append(4)
q.append(5)
q.appendleft(0)
print(q, q.popleft(), q.pop(), len(q), list(q), q[0])
q.rotate(1)
print(list(q))


@dataclass
class Config:
    lr: float = 0.1
    layers: List[int] = field(default_factory=lambda: [4, 4])
    name: str = "mlp"


@dataclass(frozen=True)
class Frozen:
    a: int
    b: int = 2


cfg = Config(lr=0.01)
print(cfg, cfg == Config(0.01), dataclasses.asdict(cfg), dataclasses.replace(cfg, name="cnn"))
print([f.name for f in dataclasses.fields(Config)], dataclasses.is_dataclass(cfg))
fz = Frozen(1)
print(fz, hash(fz) == hash(Frozen(1)), fz == Frozen(1, 2))
try:
    fz.a = 3
except dataclasses.FrozenInstanceError as e:
    print("frozen:", e)


@dataclass(order=True)
class Version:
    major: int
    minor: int = 0

    def __post_init__(self):
        self.label = f"v{self.major}.{self.minor}"


print(sorted([Version(2), Version(1, 5)]), Version(1).label)


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Mode(enum.IntEnum):
    TRAIN = 0
    EVAL = 1


print(Color.RED, Color.RED.name, Color.RED.value, Color(2), list(Color), Color["GREEN"], Mode.EVAL + 1)
print(Color.RED == Color.RED, Color.RED is Color(1), isinstance(Color.RED, Color), repr(Color.GREEN))


class Model(ABC):
    @abstractmethod
    def forward(self, x):
        ...

    def __call__(self, x):
        return self.forward(x)


class Double(Model):
    def forward(self, x):
        return 2 * x


print(Double()(4))
try:
    Model()
except TypeError as e:
    print(e)

nested = {"a": [1, [2, 3]], "b": {"c": 4}}
shallow = copy.copy(nested)
deep = copy.deepcopy(nested)
nested["a"][1].append(9)
print(shallow["a"], deep["a"], deep == nested, shallow is nested)
opt: Optional[int] = None
fn: Callable[[int], int] = lambda v: v
t: Tuple[int, ...] = (1,)
print(opt, fn(2), t, Dict, Any is not None)
print(collections.ChainMap({"a": 1}, {"a": 2, "b": 3})["b"])
Point(1, 2, 3)
