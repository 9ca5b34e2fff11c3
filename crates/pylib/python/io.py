"""io: StringIO, an in-memory text stream, as CPython's (reading, writing, seeking, line
iteration, `with`). The playground has no files, so this is what reads text a program holds."""


class UnsupportedOperation(OSError, ValueError):
    pass


class StringIO:
    def __init__(self, initial_value="", newline="\n"):
        if initial_value is None:
            initial_value = ""
        if not isinstance(initial_value, str):
            raise TypeError(f"initial_value must be str or None, not {type(initial_value).__name__}")
        if newline not in (None, "", "\n", "\r", "\r\n"):
            raise ValueError(f"illegal newline value: {newline!r}")
        self._newline = newline
        self._buffer = self._translate(initial_value)
        self._position = 0
        self._closed = False

    def _translate(self, text):
        # Universal newlines on reading (newline=None) and the newline given on writing.
        if self._newline is None:
            return text.replace("\r\n", "\n").replace("\r", "\n")
        if self._newline in ("\r", "\r\n"):
            return text.replace("\n", self._newline)
        return text

    def _check_open(self):
        if self._closed:
            raise ValueError("I/O operation on closed file")

    @property
    def closed(self):
        return self._closed

    def close(self):
        self._closed = True

    def readable(self):
        self._check_open()
        return True

    def writable(self):
        self._check_open()
        return True

    def seekable(self):
        self._check_open()
        return True

    def getvalue(self):
        self._check_open()
        return self._buffer

    def tell(self):
        self._check_open()
        return self._position

    def seek(self, pos, whence=0):
        self._check_open()
        if whence == 0:
            if pos < 0:
                raise ValueError(f"Negative seek position {pos}")
            self._position = pos
        elif whence == 1:
            if pos != 0:
                raise OSError("Can't do nonzero cur-relative seeks")
        elif whence == 2:
            if pos != 0:
                raise OSError("Can't do nonzero end-relative seeks")
            self._position = len(self._buffer)
        else:
            raise ValueError(f"Invalid whence ({whence}, should be 0, 1 or 2)")
        return self._position

    def write(self, s):
        self._check_open()
        if not isinstance(s, str):
            raise TypeError(f"string argument expected, got '{type(s).__name__}'")
        text = self._translate(s)
        end = self._position + len(text)
        before = self._buffer[: self._position]
        if len(before) < self._position:
            before = before + "\0" * (self._position - len(before))
        self._buffer = before + text + self._buffer[end:]
        self._position = end
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def read(self, size=-1):
        self._check_open()
        if size is None or size < 0:
            end = len(self._buffer)
        else:
            end = min(self._position + size, len(self._buffer))
        text = self._buffer[self._position:end]
        self._position = max(self._position, end)
        return text

    def readline(self, size=-1):
        self._check_open()
        start = self._position
        newline = self._newline if self._newline else "\n"
        end = self._buffer.find(newline, start)
        end = len(self._buffer) if end < 0 else end + len(newline)
        if size is not None and size >= 0:
            end = min(end, start + size)
        line = self._buffer[start:end]
        self._position = max(start, end)
        return line

    def readlines(self, hint=-1):
        lines = []
        total = 0
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)
            total += len(line)
            if hint is not None and 0 < hint < total:
                return lines

    def truncate(self, size=None):
        self._check_open()
        if size is None:
            size = self._position
        if size < 0:
            raise ValueError(f"Negative size value {size}")
        self._buffer = self._buffer[:size]
        return size

    def __iter__(self):
        self._check_open()
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"<_io.StringIO object at 0x{id(self):x}>"
