# The match statement (PEP 634): every kind of pattern, guards, bindings, and the errors.
from dataclasses import dataclass
from collections import namedtuple
from enum import Enum, auto


class Op(Enum):
    add = auto()
    mul = auto()


@dataclass
class Point:
    x: float
    y: float


Pair = namedtuple("Pair", "left right")


class Box:
    __match_args__ = ("content",)

    def __init__(self, content):
        self.content = content


def describe(value):
    match value:
        case None:
            return "nothing"
        case True:
            return "true"
        case 0 | 0.0:
            return "zero"
        case -1:
            return "minus one"
        case "hello" | "hi" as greeting:
            return f"greeting {greeting!r}"
        case Op.add:
            return "the op add"
        case int(n) if n > 100:
            return f"a big int {n}"
        case int() | float():
            return f"a number {value}"
        case []:
            return "an empty sequence"
        case [x]:
            return f"one item {x}"
        case [first, *middle, last] if len(middle) > 1:
            return f"from {first} to {last} through {middle}"
        case (a, b):
            return f"a pair {a}, {b}"
        case Point(x=0, y=y):
            return f"on the y axis at {y}"
        case Point(x, y) if x == y:
            return f"on the diagonal at {x}"
        case Point(x, y):
            return f"a point {x}, {y}"
        case Box(Box(inner)):
            return f"a box in a box of {inner}"
        case Box(content=[_, _] as two):
            return f"a box of two: {two}"
        case {"kind": "circle", "r": r, **rest}:
            return f"a circle of radius {r} with {rest}"
        case {"kind": str(kind)}:
            return f"some {kind}"
        case str(s):
            return f"a string {s}"
        case _:
            return f"something else of type {type(value).__name__}"


for v in [None, True, False, 0, 0.0, -1, "hello", "hi", "yo", Op.add, Op.mul, 1000, 7, 2.5, [], (), [1], (9,),
          [1, 2, 3, 4], [1, 2, 3], (1, 2), "ab", Point(0, 5), Point(2, 2), Point(1, 3), Box(Box(4)), Box([1, 2]),
          Box(3), {"kind": "circle", "r": 2, "color": "red"}, {"kind": "square"}, {"kind": 3}, Pair(1, 2), {1, 2}]:
    print(describe(v))


def commands(line):
    match line.split():
        case ["go", ("north" | "south") as direction]:
            return f"going {direction}"
        case ["take", *items] if items:
            return f"taking {', '.join(items)}"
        case ["quit" | "exit"]:
            return "bye"
        case [verb, *_]:
            return f"unknown verb {verb}"
    return "empty"


for line in ["go north", "go west", "take a b", "take", "exit", "jump high", ""]:
    print(commands(line))

# A subject tuple without parentheses, captures after the match, a match in a loop and in a
# generator.
match 1, 2:
    case (a, b):
        print("bound", a, b)
print("after", a, b)


def numbers(items):
    for item in items:
        match item:
            case int(n):
                yield n
            case [*inner]:
                yield from numbers(inner)


print(list(numbers([1, [2, [3, "x"]], "y", 4])))

match = {"match": 1}
print(match["match"])
case = 3
print(case)

try:
    match 5:
        case Op(x):
            pass
except TypeError as e:
    print("TypeError:", e)

try:
    match Point(1, 2):
        case Point(1, 2, 3):
            pass
except TypeError as e:
    print("TypeError:", e)

not_a_class = 3
match Point(1, 2):
    case not_a_class.real:
        print("never")
    case _:
        print("fallthrough")
