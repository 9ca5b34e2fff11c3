"""json: CPython's encoder and decoder (dumps/dump, loads/load), with its options and errors.

Floats are written as `repr` writes them, NaN and infinities as JavaScript names them unless
`allow_nan=False`; strings escaped as CPython escapes them (non-ASCII as \\uXXXX unless
`ensure_ascii=False`). Files are streams here (`sys.stdout`, `io`-like objects with `write` or
`read`): the playground has no files on disk.
"""

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


class JSONDecodeError(ValueError):
    def __init__(self, msg, doc, pos):
        lineno = doc.count("\n", 0, pos) + 1
        colno = pos - doc.rfind("\n", 0, pos)
        super().__init__(f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno


def _encode_string(s, ensure_ascii):
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or (ensure_ascii and ord(ch) > 0x7E):
            code = ord(ch)
            if code > 0xFFFF:
                code -= 0x10000
                out.append("\\u%04x\\u%04x" % (0xD800 | (code >> 10), 0xDC00 | (code & 0x3FF)))
            else:
                out.append("\\u%04x" % code)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


class JSONEncoder:
    item_separator = ", "
    key_separator = ": "

    def __init__(self, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True,
                 sort_keys=False, indent=None, separators=None, default=None):
        self.skipkeys = skipkeys
        self.ensure_ascii = ensure_ascii
        self.allow_nan = allow_nan
        self.sort_keys = sort_keys
        if isinstance(indent, int):
            indent = " " * indent
        self.indent = indent
        if separators is not None:
            self.item_separator, self.key_separator = separators
        elif indent is not None:
            self.item_separator = ","
        if default is not None:
            self.default = default

    def default(self, o):
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    def encode(self, o):
        return "".join(self._encode(o, 0, []))

    def _float(self, f):
        if f != f:
            text = "NaN"
        elif f == float("inf"):
            text = "Infinity"
        elif f == -float("inf"):
            text = "-Infinity"
        else:
            return repr(f)
        if not self.allow_nan:
            raise ValueError("Out of range float values are not JSON compliant")
        return text

    def _key(self, k):
        if isinstance(k, str):
            return k
        if k is True:
            return "true"
        if k is False:
            return "false"
        if k is None:
            return "null"
        if isinstance(k, float):
            return self._float(k)
        if isinstance(k, int):
            return str(k)
        if self.skipkeys:
            return None
        raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")

    def _encode(self, o, level, parents):
        if isinstance(o, str):
            return [_encode_string(o, self.ensure_ascii)]
        if o is None:
            return ["null"]
        if o is True:
            return ["true"]
        if o is False:
            return ["false"]
        if isinstance(o, int):
            return [str(int(o))]
        if isinstance(o, float):
            return [self._float(float(o))]
        if isinstance(o, (list, tuple, dict)):
            for p in parents:
                if p is o:
                    raise ValueError("Circular reference detected")
            parents.append(o)
            if isinstance(o, dict):
                parts = self._encode_dict(o, level, parents)
            else:
                parts = self._encode_list(o, level, parents)
            parents.pop()
            return parts
        return self._encode(self.default(o), level, parents)

    def _newline(self, level):
        if self.indent is None:
            return ""
        return "\n" + self.indent * level

    def _encode_list(self, o, level, parents):
        if not o:
            return ["[]"]
        parts = ["[", self._newline(level + 1)]
        for i, item in enumerate(o):
            if i:
                parts.append(self.item_separator + self._newline(level + 1))
            parts.extend(self._encode(item, level + 1, parents))
        parts.append(self._newline(level))
        parts.append("]")
        return parts

    def _encode_dict(self, o, level, parents):
        if not o:
            return ["{}"]
        items = list(o.items())
        if self.sort_keys:
            items = sorted(items)
        parts = ["{", self._newline(level + 1)]
        first = True
        for k, v in items:
            key = self._key(k)
            if key is None:
                continue
            if not first:
                parts.append(self.item_separator + self._newline(level + 1))
            first = False
            parts.append(_encode_string(key, self.ensure_ascii))
            parts.append(self.key_separator)
            parts.extend(self._encode(v, level + 1, parents))
        parts.append(self._newline(level))
        parts.append("}")
        return parts


def dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=True, cls=None,
          indent=None, separators=None, default=None, sort_keys=False, **kw):
    cls = cls or JSONEncoder
    return cls(skipkeys=skipkeys, ensure_ascii=ensure_ascii, check_circular=check_circular, allow_nan=allow_nan,
               indent=indent, separators=separators, default=default, sort_keys=sort_keys, **kw).encode(obj)


def dump(obj, fp, **kwargs):
    fp.write(dumps(obj, **kwargs))


_WHITESPACE = " \t\n\r"
_NUMBER_CHARS = "+-0123456789.eE"


class _Decoder:
    def __init__(self, doc, object_hook, parse_float, parse_int, object_pairs_hook):
        self.doc = doc
        self.object_hook = object_hook
        self.object_pairs_hook = object_pairs_hook
        self.parse_float = parse_float or float
        self.parse_int = parse_int or int

    def skip(self, i):
        doc = self.doc
        while i < len(doc) and doc[i] in _WHITESPACE:
            i += 1
        return i

    def value(self, i):
        doc = self.doc
        if i >= len(doc):
            raise JSONDecodeError("Expecting value", doc, i)
        ch = doc[i]
        if ch == '"':
            return self.string(i + 1)
        if ch == "{":
            return self.object(i + 1)
        if ch == "[":
            return self.array(i + 1)
        for word, value in (("null", None), ("true", True), ("false", False), ("NaN", float("nan")),
                            ("Infinity", float("inf")), ("-Infinity", -float("inf"))):
            if doc.startswith(word, i):
                return value, i + len(word)
        if ch in "-0123456789":
            return self.number(i)
        raise JSONDecodeError("Expecting value", doc, i)

    def number(self, i):
        doc = self.doc
        j = i
        while j < len(doc) and doc[j] in _NUMBER_CHARS:
            j += 1
        text = doc[i:j]
        if any(c in text for c in ".eE"):
            return self.parse_float(text), j
        return self.parse_int(text), j

    def string(self, i):
        doc = self.doc
        out = []
        start = i - 1
        while True:
            if i >= len(doc):
                raise JSONDecodeError("Unterminated string starting at", doc, start)
            ch = doc[i]
            if ch == '"':
                return "".join(out), i + 1
            if ch == "\\":
                if i + 1 >= len(doc):
                    raise JSONDecodeError("Unterminated string starting at", doc, start)
                esc = doc[i + 1]
                if esc == "u":
                    code = int(doc[i + 2:i + 6], 16)
                    i += 6
                    if 0xD800 <= code < 0xDC00 and doc.startswith("\\u", i):
                        low = int(doc[i + 2:i + 6], 16)
                        if 0xDC00 <= low < 0xE000:
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                    out.append(chr(code))
                    continue
                simple = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
                if esc not in simple:
                    raise JSONDecodeError("Invalid \\escape", doc, i)
                out.append(simple[esc])
                i += 2
                continue
            if ord(ch) < 0x20:
                raise JSONDecodeError("Invalid control character at", doc, i)
            out.append(ch)
            i += 1

    def array(self, i):
        doc = self.doc
        items = []
        i = self.skip(i)
        if i < len(doc) and doc[i] == "]":
            return items, i + 1
        while True:
            i = self.skip(i)
            value, i = self.value(i)
            items.append(value)
            i = self.skip(i)
            if i < len(doc) and doc[i] == "]":
                return items, i + 1
            if i >= len(doc) or doc[i] != ",":
                raise JSONDecodeError("Expecting ',' delimiter", doc, i)
            i += 1

    def object(self, i):
        doc = self.doc
        pairs = []
        i = self.skip(i)
        if i < len(doc) and doc[i] == "}":
            return self.finish_object(pairs), i + 1
        while True:
            i = self.skip(i)
            if i >= len(doc) or doc[i] != '"':
                raise JSONDecodeError("Expecting property name enclosed in double quotes", doc, i)
            key, i = self.string(i + 1)
            i = self.skip(i)
            if i >= len(doc) or doc[i] != ":":
                raise JSONDecodeError("Expecting ':' delimiter", doc, i)
            i = self.skip(i + 1)
            value, i = self.value(i)
            pairs.append((key, value))
            i = self.skip(i)
            if i < len(doc) and doc[i] == "}":
                return self.finish_object(pairs), i + 1
            if i >= len(doc) or doc[i] != ",":
                raise JSONDecodeError("Expecting ',' delimiter", doc, i)
            i += 1

    def finish_object(self, pairs):
        if self.object_pairs_hook is not None:
            return self.object_pairs_hook(pairs)
        obj = dict(pairs)
        if self.object_hook is not None:
            return self.object_hook(obj)
        return obj


def loads(s, *, cls=None, object_hook=None, parse_float=None, parse_int=None, parse_constant=None,
          object_pairs_hook=None, **kw):
    if not isinstance(s, str):
        raise TypeError(f"the JSON object must be str, bytes or bytearray, not {type(s).__name__}")
    decoder = _Decoder(s, object_hook, parse_float, parse_int, object_pairs_hook)
    i = decoder.skip(0)
    value, i = decoder.value(i)
    i = decoder.skip(i)
    if i != len(s):
        raise JSONDecodeError("Extra data", s, i)
    return value


def load(fp, **kwargs):
    return loads(fp.read(), **kwargs)
