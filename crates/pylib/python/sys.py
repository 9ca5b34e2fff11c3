"""sys: what scripts ask of the interpreter running them."""

import _playground


class _VersionInfo(tuple):
    major = property(lambda self: self[0])
    minor = property(lambda self: self[1])
    micro = property(lambda self: self[2])
    releaselevel = property(lambda self: self[3])
    serial = property(lambda self: self[4])


version_info = _VersionInfo((3, 11, 7, "final", 0))
version = "3.11.7 (TPU Playground)"
platform = "linux"
byteorder = "little"
maxsize = 9223372036854775807
argv = ["script.py"]
executable = ""
path = []
flags = None


def exit(status=None):
    raise SystemExit(status)


def getrecursionlimit():
    return _playground.recursion_limit()


def setrecursionlimit(limit):
    """The playground's limit is its own (see the page's limits); this changes nothing."""
    if limit < 1:
        raise ValueError("recursion limit must be greater or equal than 1")


class _Stream:
    def __init__(self, name, write):
        self.name = name
        self._write = write

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        return self._write(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def __repr__(self):
        return f"<_io.TextIOWrapper name='<{self.name}>' mode='w' encoding='utf-8'>"


stdout = _Stream("stdout", _playground.write_stdout)
stderr = _Stream("stderr", _playground.write_stderr)
__stdout__ = stdout
__stderr__ = stderr
