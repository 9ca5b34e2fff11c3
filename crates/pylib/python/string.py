"""string: constants of character classes, capwords and Template."""

whitespace = " \t\n\r\x0b\x0c"
ascii_lowercase = "abcdefghijklmnopqrstuvwxyz"
ascii_uppercase = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ascii_letters = ascii_lowercase + ascii_uppercase
digits = "0123456789"
hexdigits = digits + "abcdef" + "ABCDEF"
octdigits = "01234567"
punctuation = r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"""
printable = digits + ascii_letters + punctuation + whitespace


def capwords(s, sep=None):
    return (sep or " ").join(map(str.capitalize, s.split(sep)))


class Template:
    """`$name`, `${name}` and `$$` substitution, as string.Template does."""

    delimiter = "$"

    def __init__(self, template):
        self.template = template

    def _render(self, mapping, safe):
        out = []
        text = self.template
        i = 0
        while i < len(text):
            c = text[i]
            if c != "$":
                out.append(c)
                i += 1
                continue
            rest = text[i + 1 :]
            if rest.startswith("$"):
                out.append("$")
                i += 2
                continue
            braced = rest.startswith("{")
            j = 1 if braced else 0
            name = ""
            while j < len(rest) and (rest[j].isalnum() or rest[j] == "_") and not (name == "" and rest[j].isdigit()):
                name += rest[j]
                j += 1
            if braced and (j >= len(rest) or rest[j] != "}"):
                name = ""
            if not name:
                if safe:
                    out.append("$")
                    i += 1
                    continue
                line = text[:i].count("\n") + 1
                col = i - (text.rfind("\n", 0, i) + 1) + 1
                raise ValueError(f"Invalid placeholder in string: line {line}, col {col}")
            end = j + 1 if braced else j
            if name in mapping:
                out.append(str(mapping[name]))
            elif safe:
                out.append(text[i : i + 1 + end])
            else:
                raise KeyError(name)
            i += 1 + end
        return "".join(out)

    def substitute(self, mapping=None, /, **kws):
        values = dict(mapping or {}, **kws)
        return self._render(values, False)

    def safe_substitute(self, mapping=None, /, **kws):
        values = dict(mapping or {}, **kws)
        return self._render(values, True)
