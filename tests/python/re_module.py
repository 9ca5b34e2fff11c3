# re: patterns, Match objects, findall/finditer/sub/split with CPython's results, and re.error
# for what the playground's engine refuses.
import re

m = re.search(r"(\d+)-(\d+)", "range 10-20 and 30-40")
print(m, m.group(), m.group(1, 2), m.groups(), m.span(2), m.start(), m.end(1), m[0], m.lastindex)
m = re.match(r"(?P<key>\w+)=(?P<value>[^;]*)", "lr=0.001;steps=10")
print(m.groupdict(), m.group("value"), m.lastgroup, re.match(r"\d", "a1"), re.fullmatch(r"a|ab", "ab"))
print(re.findall(r"\d+", "a1b22c333"), re.findall(r"(\w)=(\d)", "a=1, b=2"), re.findall(r"\w*", "ab cd"))
print([m.span() for m in re.finditer(r"x*", "axxb")], re.findall(r"(a)|b", "ab"))
print(re.sub(r"\s+", " ", "a  b \t c"), re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@host"), re.sub("x*", "-", "abc"))
print(re.sub(r"(?P<n>\d)", r"<\g<n>>", "a1b2"), re.subn(r"\d", lambda m: str(int(m.group()) * 2), "1 2 3"))
print(re.split(r"[,;]\s*", "a, b;c"), re.split(r"(,)", "a,b"), re.split(r"\d", "a1b2c", maxsplit=1))
p = re.compile(r"^epoch (\d+): loss=([\d.]+)$", re.MULTILINE)
log = "epoch 1: loss=0.5\nepoch 2: loss=0.25\n"
print(p, p.groups, p.findall(log), [float(x) for _, x in p.findall(log)])
print(re.search(r"HELLO", "say hello", re.I).group(), re.findall(r"a.b", "a\nb", re.S), re.escape("1.5+x(y)"))
print(re.compile(r"""
    (\d+)   # digits
    \s*
    ([a-z]+)  # unit
""", re.X).findall("10 km 5m"))
print(re.search(r"é(\w)", "café-éa").span(), re.sub(r"\bcat\b", "dog", "cat concat cat"), bool(re.search("z", "abc")))
print(re.compile(r"a+", re.I), re.compile("b") == re.compile("b"), re.search(r"\Aab\Z", "ab").group())
for bad in [r"(a", r"[b", r"a{2,1}"]:
    try:
        re.compile(bad)
        print("compiled", bad)
    except re.error as e:
        print("re.error", bad)
try:
    re.sub(r"(a)", r"\q", "a")
except re.error as e:
    print("re.error", e)
