# io.StringIO: reading, writing, seeking, lines, iteration, `with`, and CPython's errors.
import io

s = io.StringIO("alpha,1\nbeta,2\n\ngamma,3")
print(s.readline(), repr(s.readline()), s.tell())
print(s.read(3), repr(s.read()), repr(s.read()), s.tell())
s.seek(0)
print([line.rstrip("\n").split(",") for line in s])
s.seek(0)
print(s.readlines(), s.seek(0, 2))
print(s.write("!\nend"), repr(s.getvalue()))
s.seek(6)
print(s.write("XY"), repr(s.getvalue()), s.tell(), s.truncate(), repr(s.getvalue()))
with io.StringIO() as out:
    print(out.write("one\n"), out.writelines(["two\n", "three"]), repr(out.getvalue()))
    print(out.readable(), out.writable(), out.seekable(), out.closed)
print(out.closed)
for attempt in [lambda: out.getvalue(), lambda: out.read(), lambda: io.StringIO(3), lambda: io.StringIO().write(7),
                lambda: io.StringIO().seek(-1), lambda: io.StringIO("a").seek(1, 1), lambda: io.StringIO("a").seek(0, 5)]:
    try:
        attempt()
    except Exception as e:
        print(type(e).__name__, e)
r = io.StringIO("x\r\ny\rz", newline=None)
print(repr(r.read()), repr(io.StringIO("a\nb", newline="\r\n").getvalue()))
print(repr(io.StringIO("abcdef").readline(3)), io.StringIO("a\nb\nc\n").readlines(2))
t = io.StringIO("hello")
t.seek(8)
t.write("!")
print(repr(t.getvalue()))
