# Generators, iterators, comprehensions, scoping.


def count_up(n):
    i = 0
    while i < n:
        yield i
        i += 1
    return "done"


def batches(data, size):
    for start in range(0, len(data), size):
        yield data[start:start + size]


def chain(*its):
    for it in its:
        yield from it


print(list(count_up(4)), list(batches(list(range(7)), 3)), list(chain("ab", [1, 2], range(2))))
g = count_up(2)
print(next(g), next(g))
try:
    next(g)
except StopIteration as e:
    print("stop", e.value)
print(next(iter([]), "empty"))


def echo():
    total = 0
    while True:
        x = yield total
        if x is None:
            break
        total += x


e = echo()
next(e)
print(e.send(3), e.send(4))


def gen_with_finally():
    try:
        yield 1
        yield 2
    finally:
        print("generator closed")


for x in gen_with_finally():
    print("got", x)
    break
gg = gen_with_finally()
next(gg)
gg.close()
print(sum(x * x for x in range(10)), max((len(w), w) for w in ["aa", "b", "ccc"]))
print({x % 3 for x in range(10)}, {k: v for k, v in zip("abc", range(3))})
print([(i, j) for i in range(3) for j in range(i) if (i + j) % 2])
it = iter([1, 2, 3])
print(next(it), list(it), list(it))
print(list(zip(*[(1, "a"), (2, "b")])), list(map(lambda a, b: a * b, [1, 2], [3, 4])))
print(list(filter(None, [0, 1, "", "x"])), list(enumerate("ab", start=1)), list(reversed([1, 2, 3])))
print(sorted(["b", "A", "c"], key=str.lower), sorted([3, 1, 2], reverse=True), any([]), all([]))


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


print(list(Countdown(3)), [x for x in Countdown(2)])

counter = 0


def bump():
    global counter
    counter += 1


def make_acc():
    total = 0

    def add(x):
        nonlocal total
        total += x
        return total

    return add


bump()
bump()
acc = make_acc()
acc(2)
print(counter, acc(3))
fns = [lambda x, i=i: x + i for i in range(3)]
print([f(10) for f in fns])
if (n := len("hello")) > 3:
    print("walrus", n)
for i in range(3):
    if i == 5:
        break
else:
    print("for-else ran")
while False:
    pass
else:
    print("while-else ran")
a, *rest = [1, 2, 3, 4]
*init, last = "xyz"
(p, q), r = (1, 2), 3
print(a, rest, init, last, p, q, r)
print(*[1, 2], *"ab", sep="-")


def kw(a, /, b, *args, c=3, **kwargs):
    return a, b, args, c, kwargs


print(kw(1, 2, 3, 4, c=5, d=6), kw(*[1, 2], **{"c": 7}))
print({**{"a": 1}, "b": 2, **{"a": 3}}, [*range(3), *"ab"])
print(1 < 2 < 3, 1 < 3 < 2, 1 == 1.0 != 2)
if __name__ == "__main__":
    print("main")
gen = (x for x in range(3))
print(list(gen), list(gen))
kw(1)
