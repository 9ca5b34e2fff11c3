# functools, itertools, operator, math, random, string, heapq, bisect, time, sys, contextlib.
import bisect
import functools
import heapq
import itertools
import math
import operator
import random
import string
import sys
import time
from contextlib import contextmanager
from functools import lru_cache, partial, reduce, wraps

print(reduce(operator.add, [1, 2, 3, 4]), reduce(lambda a, b: a * b, range(1, 6), 1))
add3 = partial(operator.add, 3)
print(add3(4), add3.func is operator.add, add3.args)


def logged(fn):
    @wraps(fn)
    def inner(*args, **kwargs):
        print("calling", fn.__name__)
        return fn(*args, **kwargs)

    return inner


@logged
def square(x):
    """Squares."""
    return x * x


print(square(5), square.__name__, square.__doc__)


@lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(60), fib.cache_info().hits > 0)
print(list(itertools.product([0, 1], repeat=2)), list(itertools.permutations("abc", 2))[:3])
print(list(itertools.combinations(range(4), 2)), list(itertools.accumulate([1, 2, 3, 4])))
print(list(itertools.chain([1], (2, 3))), list(itertools.chain.from_iterable([[1], [2]])))
print(list(itertools.islice(itertools.count(5, 2), 3)), list(itertools.repeat("x", 2)))
print([(k, list(g)) for k, g in itertools.groupby("aabccc")], list(itertools.zip_longest("ab", "c", fillvalue="-")))
print(list(itertools.takewhile(lambda v: v < 3, [1, 2, 5, 1])), list(itertools.starmap(pow, [(2, 3)])))
print(list(itertools.islice(itertools.cycle("ab"), 5)), list(itertools.compress("abc", [1, 0, 1])))
print(operator.itemgetter(1)([5, 6]), operator.attrgetter("real")(3), operator.mul(3, 4), operator.neg(2))
print(math.pi, math.e, math.sqrt(2), math.exp(1), math.log(100, 10), math.log2(8), math.log1p(1e-10))
print(math.floor(-2.5), math.ceil(2.1), math.trunc(-2.7), math.isclose(0.1 + 0.2, 0.3), math.inf, -math.inf)
print(math.gcd(12, 18), math.factorial(10), math.comb(5, 2), math.perm(5, 2), math.prod([1, 2, 3]), math.fsum([0.1] * 10))
print(math.sin(math.pi / 6), math.atan2(1, 1), math.hypot(3, 4), math.degrees(math.pi), math.erf(0.5), math.gamma(5.5))
print(math.isnan(math.nan), math.isinf(math.inf), math.copysign(1, -0.0), math.fmod(7, -3), math.modf(2.5), math.frexp(8.0))
print(math.lgamma(10), math.tanh(0.5), math.cosh(1), math.asinh(1), math.dist([0, 0], [3, 4]), math.isqrt(17))
random.seed(42)
print(random.random(), random.randint(1, 100), random.choice("abcdef"), random.uniform(1, 2))
items = list(range(10))
random.shuffle(items)
print(items, random.sample(range(100), 3), round(random.gauss(0, 1), 12), random.randrange(0, 10, 2))
rng = random.Random(0)
print(rng.random(), rng.randint(0, 9), rng.choices("ab", k=3))
print(string.ascii_lowercase, string.digits, string.punctuation[:5], string.ascii_uppercase[:3])
h = [5, 1, 4, 2]
heapq.heapify(h)
heapq.heappush(h, 0)
print(heapq.heappop(h), h, heapq.nlargest(2, [3, 9, 1, 7]), heapq.nsmallest(2, [3, 9, 1, 7]))
arr = [1, 3, 5, 7]
print(bisect.bisect_left(arr, 5), bisect.bisect_right(arr, 5), bisect.bisect(arr, 4))
bisect.insort(arr, 4)
print(arr)
t0 = time.time()
t1 = time.perf_counter()
print(time.time() >= t0, time.perf_counter() >= t1, type(time.time()).__name__)
print(sys.version_info[0], sys.maxsize, type(sys.argv).__name__, sys.platform != "")


@contextmanager
def tag(name):
    print(f"<{name}>")
    try:
        yield name.upper()
    finally:
        print(f"</{name}>")


with tag("a") as up, tag("b"):
    print("inside", up)


class Timer:
    def __enter__(self):
        print("enter")
        return self

    def __exit__(self, kind, value, tb):
        print("exit", kind.__name__ if kind else None)
        return True


with Timer() as tm:
    raise ValueError("suppressed")
print("after suppressed", isinstance(tm, Timer))
print(sys.exit.__name__)
sys.exit(0)
print("never")
