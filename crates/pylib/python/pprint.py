"""pprint: CPython's pretty printer (dict keys sorted, lines broken to fit the width)."""

import sys as _sys


def pprint(object, stream=None, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True,
           underscore_numbers=False):
    printer = PrettyPrinter(stream=stream, indent=indent, width=width, depth=depth, compact=compact,
                            sort_dicts=sort_dicts)
    printer.pprint(object)


def pformat(object, indent=1, width=80, depth=None, *, compact=False, sort_dicts=True, underscore_numbers=False):
    return PrettyPrinter(indent=indent, width=width, depth=depth, compact=compact,
                         sort_dicts=sort_dicts).pformat(object)


def pp(object, *args, sort_dicts=False, **kwargs):
    pprint(object, *args, sort_dicts=sort_dicts, **kwargs)


def _safe_key(item):
    key = item[0] if isinstance(item, tuple) and len(item) == 2 else item
    return (str(type(key)), key) if not isinstance(key, (int, float, str)) else ("", key)


class _Stream:
    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)


class PrettyPrinter:
    def __init__(self, indent=1, width=80, depth=None, stream=None, *, compact=False, sort_dicts=True,
                 underscore_numbers=False):
        self._indent_per_level = indent
        self._width = width
        self._depth = depth
        self._stream = stream
        self._compact = compact
        self._sort_dicts = sort_dicts

    def pprint(self, object):
        text = self.pformat(object) + "\n"
        if self._stream is None:
            print(text, end="")
        else:
            self._stream.write(text)

    def pformat(self, object):
        stream = _Stream()
        self._format(object, stream, 0, 0, 0)
        return "".join(stream.parts)

    def _format(self, object, stream, indent, allowance, level):
        rep = self._repr(object, level)
        max_width = self._width - indent - allowance
        if len(rep) > max_width:
            if isinstance(object, dict) and type(object).__repr__ is dict.__repr__ and object:
                self._pprint_dict(object, stream, indent, allowance, level)
                return
            if isinstance(object, list) and type(object).__repr__ is list.__repr__ and object:
                stream.write("[")
                self._format_items(object, stream, indent, allowance + 1, level)
                stream.write("]")
                return
            if isinstance(object, tuple) and type(object).__repr__ is tuple.__repr__ and object:
                stream.write("(")
                endchar = ",)" if len(object) == 1 else ")"
                self._format_items(object, stream, indent, allowance + len(endchar), level)
                stream.write(endchar)
                return
        stream.write(rep)

    def _pprint_dict(self, object, stream, indent, allowance, level):
        stream.write("{")
        if self._indent_per_level > 1:
            stream.write((self._indent_per_level - 1) * " ")
        items = sorted(object.items(), key=_safe_key) if self._sort_dicts else list(object.items())
        indent += self._indent_per_level
        delimnl = ",\n" + " " * indent
        last_index = len(items) - 1
        for i, (key, ent) in enumerate(items):
            last = i == last_index
            rep = self._repr(key, level)
            stream.write(rep)
            stream.write(": ")
            self._format(ent, stream, indent + len(rep) + 2, allowance + 1 if last else 1, level)
            if not last:
                stream.write(delimnl)
        stream.write("}")

    def _format_items(self, items, stream, indent, allowance, level):
        indent += self._indent_per_level
        if self._indent_per_level > 1:
            stream.write((self._indent_per_level - 1) * " ")
        delimnl = ",\n" + " " * indent
        delim = ""
        width = max_width = self._width - indent + 1
        it = iter(items)
        try:
            next_ent = next(it)
        except StopIteration:
            return
        last = False
        while not last:
            ent = next_ent
            try:
                next_ent = next(it)
            except StopIteration:
                last = True
                max_width -= allowance
                width -= allowance
            if self._compact:
                rep = self._repr(ent, level)
                w = len(rep) + 2
                if width < w:
                    width = max_width
                    if delim:
                        delim = delimnl
                if width >= w:
                    width -= w
                    stream.write(delim)
                    delim = ", "
                    stream.write(rep)
                    continue
            stream.write(delim)
            delim = delimnl
            self._format(ent, stream, indent, allowance if last else 1, level)

    def _repr(self, object, level):
        if isinstance(object, dict) and type(object).__repr__ is dict.__repr__:
            if not object:
                return "{}"
            if self._depth is not None and level >= self._depth:
                return "{...}"
            items = sorted(object.items(), key=_safe_key) if self._sort_dicts else list(object.items())
            return "{" + ", ".join(f"{self._repr(k, level + 1)}: {self._repr(v, level + 1)}" for k, v in items) + "}"
        if isinstance(object, list) and type(object).__repr__ is list.__repr__:
            if not object:
                return "[]"
            if self._depth is not None and level >= self._depth:
                return "[...]"
            return "[" + ", ".join(self._repr(v, level + 1) for v in object) + "]"
        if isinstance(object, tuple) and type(object).__repr__ is tuple.__repr__:
            if not object:
                return "()"
            if self._depth is not None and level >= self._depth:
                return "(...)"
            if len(object) == 1:
                return "(" + self._repr(object[0], level + 1) + ",)"
            return "(" + ", ".join(self._repr(v, level + 1) for v in object) + ")"
        return repr(object)

    def isreadable(self, object):
        return True

    def isrecursive(self, object):
        return False
