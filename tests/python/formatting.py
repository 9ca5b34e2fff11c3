# String formatting: f-strings, str.format, %, and string methods.
pi = 3.14159265
print(f"{pi:.3f} {pi:10.2f}| {pi:<10.1f}| {42:05d} {42:x} {255:#x} {1234567:,} {0.5:.1%} {1e-5:e} {-3:+d}")
print(f"{'left':<8}|{'right':>8}|{'mid':^8}|{'fill':*^10}")
print("{} and {}".format(1, 2), "{1} {0}".format("a", "b"), "{name}={value:.2f}".format(name="x", value=2))
print("{0!r} {0!s}".format("q"), "{:>6}".format("ab"), "{:,.2f}".format(12345.678))
print("%d items, %s, %.2f, %5s|, %-5s|, %x, %r, %%" % (3, "str", 2.5, "ab", "cd", 255, "r"))
print("%(a)s-%(b)d" % {"a": "x", "b": 2}, "%s" % [1, 2], "%03d" % 7)
s = "  Hello, World  "
print(s.strip(), s.lstrip(), s.rstrip(), s.lower(), s.upper(), s.title(), s.swapcase())
print("a,b,,c".split(","), "a b  c".split(), "a,b,c".split(",", 1), "a-b-c".rsplit("-", 1))
print("x".join(["1", "2"]), "abc".replace("b", "B"), "abcabc".count("bc"), "abc".find("z"), "abc".index("c"))
print("abc".startswith(("x", "a")), "abc".endswith("bc"), "42".isdigit(), "ab".isalpha(), " ".isspace())
print("abc".center(9, "*"), "7".zfill(3), "ab".ljust(4, ".") + "|", "ab".rjust(4) + "|", "Ab".casefold())
print("line1\nline2".splitlines(), "a\tb".expandtabs(4), "hello"[::-1], "hello"[1:4], "x" * 3)
print("abc".partition("b"), "abc".rpartition("x"), "%s" % (1,), "{:b}".format(5), ord("a"), chr(98))
print(repr("it's"), repr('say "hi"'), str(1.0), str(1e20), str(1e-7), repr(0.1 + 0.2), 10 / 4, 7 // 2, -7 // 2, -7 % 3)
print(round(2.5), round(3.5), round(2.675, 2), int("ff", 16), int(" 42 "), float("1e3"), bool(""), str(True))
print(f"{[1, 2]!r:>10}", f"{3!r}", f"{'a' 'b'}", f"{{braces}}", f"{1 + 2 = }")
print(format(3.5, ".1f"), format(10, "b"), ascii("é"), "%.3e" % 12345.6789, "%g" % 0.0001, "%g" % 123456789.0)
print(divmod(7, 2), divmod(-7, 2), pow(2, 10), pow(2, 10, 1000), abs(-3.5), 2 ** -1, 1_000_000)
print(hex(255), oct(8), bin(5), min("abc"), max([1, 5, 3]), sum([0.1] * 10), 3 * "ab")
print("{:e}".format(0.000123), "{:g}".format(1e-10), "{:.0f}".format(0.5), "{:.0f}".format(1.5), "{:%}".format(0.25))
print(0x1F, 0o17, 0b101, 0xff_ff, -0x10, f"{0xab:#06x}", f"{-5:#b}", f"{255:_x}", f"{10**6:_}")
# Shortest reprs where two candidates are equally near: CPython takes the even last digit.
print(3.17350006103515625, 8.8511505126953125, repr(-9.900100708007812), 0.1 + 0.2, 1 / 3, 2.5e-300, 1e22)
"{} {}".format(1)

# String escapes: octal, \a \b \f \v, \x, \u and \U.
print(repr("\a\b\f\v\033[0m\0\x41\u00e9\U0001F600"), "\101\1012", len("\U0001F600"))
