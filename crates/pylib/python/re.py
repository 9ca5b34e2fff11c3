"""re: regular expressions with CPython's API (Pattern and Match objects, search, match,
fullmatch, findall, finditer, sub, subn, split, escape and the flags).

Patterns run on the `regex` crate (`_playground.re_compile`/`re_search`): Python's syntax
without what needs backtracking (backreferences, look-around), which raises `re.error`.
"""

from _playground import re_compile as _compile, re_search as _search

A = ASCII = 256
I = IGNORECASE = 2
L = LOCALE = 4
M = MULTILINE = 8
S = DOTALL = 16
U = UNICODE = 32
X = VERBOSE = 64
NOFLAG = 0


class error(Exception):
    def __init__(self, msg, pattern=None, pos=None):
        self.msg = msg
        self.pattern = pattern
        self.pos = pos
        self.lineno = self.colno = None
        if pattern is not None and pos is not None:
            msg = "%s at position %d" % (msg, pos)
            self.lineno = pattern.count("\n", 0, pos) + 1
            self.colno = pos - pattern.rfind("\n", 0, pos)
            if "\n" in pattern:
                msg = "%s (line %d, column %d)" % (msg, self.lineno, self.colno)
        super().__init__(msg)


PatternError = error

_SEARCH, _MATCH, _FULLMATCH = 0, 1, 2


class Match:
    def __init__(self, pattern, string, spans, pos, endpos):
        self.re = pattern
        self.string = string
        self._spans = spans
        self.pos = pos
        self.endpos = endpos
        self.lastindex = None
        for i in range(len(spans) - 1, 0, -1):
            if spans[i] is not None:
                self.lastindex = i
                break
        self.lastgroup = None
        if self.lastindex is not None:
            for name, index in pattern.groupindex.items():
                if index == self.lastindex:
                    self.lastgroup = name

    def _index(self, group):
        if isinstance(group, str):
            if group not in self.re.groupindex:
                raise IndexError("no such group")
            return self.re.groupindex[group]
        if not isinstance(group, int) or group < 0 or group >= len(self._spans):
            raise IndexError("no such group")
        return group

    def _text(self, group, default=None):
        span = self._spans[self._index(group)]
        if span is None:
            return default
        return self.string[span[0]:span[1]]

    def group(self, *groups):
        if not groups:
            return self._text(0)
        if len(groups) == 1:
            return self._text(groups[0])
        return tuple(self._text(g) for g in groups)

    def __getitem__(self, group):
        return self._text(group)

    def groups(self, default=None):
        return tuple(self._text(i, default) for i in range(1, len(self._spans)))

    def groupdict(self, default=None):
        return {name: self._text(index, default) for name, index in self.re.groupindex.items()}

    def span(self, group=0):
        span = self._spans[self._index(group)]
        return (-1, -1) if span is None else span

    def start(self, group=0):
        return self.span(group)[0]

    def end(self, group=0):
        return self.span(group)[1]

    def expand(self, template):
        return _expand(template, self)

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<re.Match object; span={self.span()!r}, match={self.group()!r}>"


class Pattern:
    def __init__(self, pattern, flags):
        result = _compile(pattern, flags)
        if isinstance(result, str):
            raise error(result, pattern)
        self.pattern = pattern
        self.flags = flags | UNICODE if not flags & ASCII else flags
        self.groups, self.groupindex = result

    def _run(self, string, pos, endpos, mode):
        if not isinstance(string, str):
            raise TypeError(f"expected string or bytes-like object, got '{type(string).__name__}'")
        n = len(string)
        if endpos is None or endpos > n:
            endpos = n
        if pos < 0:
            pos = 0
        spans = _search(self.pattern, self.flags & ~UNICODE, string, pos, endpos, mode)
        return None if spans is None else Match(self, string, spans, pos, endpos)

    def search(self, string, pos=0, endpos=None):
        return self._run(string, pos, endpos, _SEARCH)

    def match(self, string, pos=0, endpos=None):
        return self._run(string, pos, endpos, _MATCH)

    def fullmatch(self, string, pos=0, endpos=None):
        return self._run(string, pos, endpos, _FULLMATCH)

    def finditer(self, string, pos=0, endpos=None):
        if endpos is None or endpos > len(string):
            endpos = len(string)
        # After an empty match, the next may not be empty at the same place (CPython's rule);
        # after a non-empty one it may.
        must_advance = False
        while pos <= endpos:
            m = self._run(string, pos, endpos, _SEARCH)
            if m is None:
                return
            if must_advance and m.span() == (pos, pos):
                if pos >= endpos:
                    return
                m = self._run(string, pos + 1, endpos, _SEARCH)
                if m is None:
                    return
            yield m
            start, end = m.span()
            must_advance = start == end
            pos = end

    def findall(self, string, pos=0, endpos=None):
        out = []
        for m in self.finditer(string, pos, endpos):
            if self.groups == 0:
                out.append(m.group())
            elif self.groups == 1:
                out.append(m.group(1) or "")
            else:
                out.append(tuple(g or "" for g in m.groups()))
        return out

    def subn(self, repl, string, count=0):
        pieces = []
        last = 0
        n = 0
        for m in self.finditer(string):
            if count and n >= count:
                break
            start, end = m.span()
            pieces.append(string[last:start])
            pieces.append(repl(m) if callable(repl) else _expand(repl, m))
            last = end
            n += 1
        pieces.append(string[last:])
        return "".join(pieces), n

    def sub(self, repl, string, count=0):
        return self.subn(repl, string, count)[0]

    def split(self, string, maxsplit=0):
        out = []
        last = 0
        n = 0
        for m in self.finditer(string):
            if maxsplit and n >= maxsplit:
                break
            start, end = m.span()
            out.append(string[last:start])
            out.extend(m.groups())
            last = end
            n += 1
        out.append(string[last:])
        return out

    def __eq__(self, other):
        return isinstance(other, Pattern) and self.pattern == other.pattern and self.flags == other.flags

    def __hash__(self):
        return hash((self.pattern, self.flags))

    def __repr__(self):
        names = [name for name, bit in (("re.IGNORECASE", I), ("re.MULTILINE", M), ("re.DOTALL", S),
                                         ("re.VERBOSE", X), ("re.ASCII", A)) if self.flags & bit]
        flags = f", {'|'.join(names)}" if names else ""
        return f"re.compile({self.pattern!r}{flags})"


def _expand(template, m):
    """A replacement template with \\1, \\g<1>, \\g<name> and the usual escapes filled in."""
    out = []
    i = 0
    n = len(template)
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "f": "\f", "v": "\v", "b": "\b"}
    while i < n:
        ch = template[i]
        if ch != "\\" or i + 1 == n:
            out.append(ch)
            i += 1
            continue
        nxt = template[i + 1]
        if nxt == "g":
            close = template.find(">", i)
            if i + 2 >= n or template[i + 2] != "<" or close < 0:
                raise error("missing <", template, i + 2)
            name = template[i + 3:close]
            group = int(name) if name.isdigit() else name
            out.append(m.group(group) or "")
            i = close + 1
        elif nxt.isdigit():
            j = i + 1
            while j < n and j < i + 3 and template[j].isdigit():
                j += 1
            out.append(m.group(int(template[i + 1:j])) or "")
            i = j
        elif nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt.isalpha():
            raise error(f"bad escape \\{nxt}", template, i)
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def compile(pattern, flags=0):
    if isinstance(pattern, Pattern):
        return pattern
    return Pattern(pattern, flags)


def search(pattern, string, flags=0):
    return compile(pattern, flags).search(string)


def match(pattern, string, flags=0):
    return compile(pattern, flags).match(string)


def fullmatch(pattern, string, flags=0):
    return compile(pattern, flags).fullmatch(string)


def findall(pattern, string, flags=0):
    return compile(pattern, flags).findall(string)


def finditer(pattern, string, flags=0):
    return compile(pattern, flags).finditer(string)


def sub(pattern, repl, string, count=0, flags=0):
    return compile(pattern, flags).sub(repl, string, count)


def subn(pattern, repl, string, count=0, flags=0):
    return compile(pattern, flags).subn(repl, string, count)


def split(pattern, string, maxsplit=0, flags=0):
    return compile(pattern, flags).split(string, maxsplit)


_SPECIAL = set("()[]{}?*+-|^$\\.&~# \t\n\r\v\f")


def escape(pattern):
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in pattern)


def purge():
    pass
