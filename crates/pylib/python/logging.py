"""logging: CPython's loggers, handlers and formatters, the part scripts use.

Loggers form a tree by dotted name under the root logger (level WARNING); a record goes to
the handlers of its logger and of each ancestor while `propagate` holds. With no handler
anywhere, CPython's last resort writes the bare message of a WARNING or worse to standard
error, and so does this module. Standard error is where `basicConfig` and `StreamHandler`
write unless given another stream; files are not written (the playground has none).
"""

import sys
import time as _time

CRITICAL = 50
FATAL = CRITICAL
ERROR = 40
WARNING = 30
WARN = WARNING
INFO = 20
DEBUG = 10
NOTSET = 0

_level_names = {CRITICAL: "CRITICAL", ERROR: "ERROR", WARNING: "WARNING", INFO: "INFO", DEBUG: "DEBUG", NOTSET: "NOTSET"}
_name_levels = {name: level for level, name in _level_names.items()}
_name_levels["WARN"] = WARNING
_name_levels["FATAL"] = CRITICAL

BASIC_FORMAT = "%(levelname)s:%(name)s:%(message)s"

# `disable(level)`: every message at this level or below is dropped.
_disabled_at = NOTSET


def getLevelName(level):
    if level in _level_names:
        return _level_names[level]
    if level in _name_levels:
        return _name_levels[level]
    return f"Level {level}"


def addLevelName(level, levelName):
    _level_names[level] = levelName
    _name_levels[levelName] = level


def _check_level(level):
    if isinstance(level, int):
        return level
    if isinstance(level, str):
        if level not in _name_levels:
            raise ValueError(f"Unknown level: {level!r}")
        return _name_levels[level]
    raise TypeError(f"Level not an integer or a valid string: {level!r}")


class LogRecord:
    def __init__(self, name, level, pathname, lineno, msg, args, exc_info, func=None, sinfo=None):
        self.name = name
        self.msg = msg
        self.args = args
        self.levelno = level
        self.levelname = getLevelName(level)
        self.pathname = pathname
        self.filename = pathname
        self.module = "__main__"
        self.lineno = lineno
        self.funcName = func
        self.exc_info = exc_info
        self.created = _time.time()
        self.msecs = int(self.created * 1000) % 1000
        self.process = 1
        self.thread = 1
        self.threadName = "MainThread"
        self.processName = "MainProcess"

    def getMessage(self):
        msg = str(self.msg)
        if self.args:
            msg = msg % self.args
        return msg

    def __repr__(self):
        return f'<LogRecord: {self.name}, {self.levelno}, {self.pathname}, {self.lineno}, "{self.msg}">'


class Formatter:
    def __init__(self, fmt=None, datefmt=None, style="%", validate=True, **kwargs):
        if style not in ("%", "{"):
            raise ValueError("Style must be one of: %, {")
        self._style = style
        self._fmt = fmt if fmt is not None else ("%(message)s" if style == "%" else "{message}")
        self.datefmt = datefmt

    def formatTime(self, record, datefmt=None):
        return f"{record.created:.3f}"

    def usesTime(self):
        return "asctime" in self._fmt

    def formatMessage(self, record):
        values = dict(record.__dict__)
        if self._style == "{":
            return self._fmt.format(**values)
        return self._fmt % values

    def format(self, record):
        record.message = record.getMessage()
        if self.usesTime():
            record.asctime = self.formatTime(record, self.datefmt)
        return self.formatMessage(record)


_default_formatter = Formatter()


class Filterer:
    def __init__(self):
        self.filters = []

    def addFilter(self, filter):
        if filter not in self.filters:
            self.filters.append(filter)

    def removeFilter(self, filter):
        if filter in self.filters:
            self.filters.remove(filter)

    def filter(self, record):
        for f in self.filters:
            result = f.filter(record) if hasattr(f, "filter") else f(record)
            if not result:
                return False
        return True


class Filter:
    def __init__(self, name=""):
        self.name = name

    def filter(self, record):
        return not self.name or record.name == self.name or record.name.startswith(self.name + ".")


class Handler(Filterer):
    def __init__(self, level=NOTSET):
        super().__init__()
        self.level = _check_level(level)
        self.formatter = None
        self.name = None

    def setLevel(self, level):
        self.level = _check_level(level)

    def setFormatter(self, fmt):
        self.formatter = fmt

    def format(self, record):
        return (self.formatter or _default_formatter).format(record)

    def handle(self, record):
        if self.filter(record):
            self.emit(record)
        return record

    def emit(self, record):
        raise NotImplementedError("emit must be implemented by Handler subclasses")

    def flush(self):
        pass

    def close(self):
        pass


class StreamHandler(Handler):
    terminator = "\n"

    def __init__(self, stream=None):
        super().__init__()
        self.stream = stream if stream is not None else sys.stderr

    def emit(self, record):
        self.stream.write(self.format(record) + self.terminator)

    def setStream(self, stream):
        old, self.stream = self.stream, stream
        return old


class FileHandler(StreamHandler):
    def __init__(self, filename, mode="a", encoding=None, delay=False, errors=None):
        raise NotImplementedError("logging.FileHandler: the playground has no files to write")


class NullHandler(Handler):
    def emit(self, record):
        pass

    def handle(self, record):
        pass


lastResort = StreamHandler()
lastResort.setLevel(WARNING)


class Logger(Filterer):
    def __init__(self, name, level=NOTSET):
        super().__init__()
        self.name = name
        self.level = _check_level(level)
        self.parent = None
        self.propagate = True
        self.handlers = []
        self.disabled = False

    def setLevel(self, level):
        self.level = _check_level(level)

    def getEffectiveLevel(self):
        logger = self
        while logger is not None:
            if logger.level:
                return logger.level
            logger = logger.parent
        return NOTSET

    def isEnabledFor(self, level):
        return not self.disabled and level > _disabled_at and level >= self.getEffectiveLevel()

    def addHandler(self, hdlr):
        if hdlr not in self.handlers:
            self.handlers.append(hdlr)

    def removeHandler(self, hdlr):
        if hdlr in self.handlers:
            self.handlers.remove(hdlr)

    def hasHandlers(self):
        logger = self
        while logger is not None:
            if logger.handlers:
                return True
            if not logger.propagate:
                return False
            logger = logger.parent
        return False

    def getChild(self, suffix):
        name = suffix if self is root else f"{self.name}.{suffix}"
        return getLogger(name)

    def _log(self, level, msg, args, exc_info=None, extra=None, stack_info=False, stacklevel=1):
        record = LogRecord(self.name, level, "<script>", 0, msg, args, exc_info)
        if extra:
            for key, value in extra.items():
                setattr(record, key, value)
        self.handle(record)

    def handle(self, record):
        if self.disabled or not self.filter(record):
            return
        found = 0
        logger = self
        while logger is not None:
            for h in logger.handlers:
                found += 1
                if record.levelno >= h.level:
                    h.handle(record)
            if not logger.propagate:
                break
            logger = logger.parent
        if found == 0 and record.levelno >= lastResort.level:
            lastResort.handle(record)

    def log(self, level, msg, *args, **kwargs):
        level = _check_level(level)
        if self.isEnabledFor(level):
            self._log(level, msg, args, **kwargs)

    def debug(self, msg, *args, **kwargs):
        if self.isEnabledFor(DEBUG):
            self._log(DEBUG, msg, args, **kwargs)

    def info(self, msg, *args, **kwargs):
        if self.isEnabledFor(INFO):
            self._log(INFO, msg, args, **kwargs)

    def warning(self, msg, *args, **kwargs):
        if self.isEnabledFor(WARNING):
            self._log(WARNING, msg, args, **kwargs)

    warn = warning

    def error(self, msg, *args, **kwargs):
        if self.isEnabledFor(ERROR):
            self._log(ERROR, msg, args, **kwargs)

    def exception(self, msg, *args, exc_info=True, **kwargs):
        self.error(msg, *args, exc_info=exc_info, **kwargs)

    def critical(self, msg, *args, **kwargs):
        if self.isEnabledFor(CRITICAL):
            self._log(CRITICAL, msg, args, **kwargs)

    fatal = critical

    def __repr__(self):
        return f"<{self.__class__.__name__} {self.name} ({getLevelName(self.getEffectiveLevel())})>"


class RootLogger(Logger):
    def __init__(self, level):
        super().__init__("root", level)

    def __repr__(self):
        return f"<RootLogger root ({getLevelName(self.level)})>"


root = RootLogger(WARNING)
_loggers = {}


def getLogger(name=None):
    if not name or name == "root":
        return root
    if name not in _loggers:
        logger = Logger(name)
        # The parent is the nearest existing ancestor by dotted name; children made before
        # this one are moved under it.
        parent = root
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            ancestor = ".".join(parts[:i])
            if ancestor in _loggers:
                parent = _loggers[ancestor]
                break
        logger.parent = parent
        for other in _loggers.values():
            if other.name.startswith(name + ".") and (other.parent is parent):
                other.parent = logger
        _loggers[name] = logger
    return _loggers[name]


def basicConfig(**kwargs):
    force = kwargs.pop("force", False)
    if force:
        for h in list(root.handlers):
            root.removeHandler(h)
    if root.handlers:
        return
    handlers = kwargs.pop("handlers", None)
    stream = kwargs.pop("stream", None)
    if "filename" in kwargs:
        raise NotImplementedError("logging.basicConfig(filename=...): the playground has no files to write")
    if handlers is None:
        handlers = [StreamHandler(stream)]
    fmt = kwargs.pop("format", None)
    style = kwargs.pop("style", "%")
    if fmt is None:
        fmt = BASIC_FORMAT if style == "%" else "{levelname}:{name}:{message}"
    formatter = Formatter(fmt, kwargs.pop("datefmt", None), style)
    for h in handlers:
        if h.formatter is None:
            h.setFormatter(formatter)
        root.addHandler(h)
    level = kwargs.pop("level", None)
    if level is not None:
        root.setLevel(level)
    if kwargs:
        raise ValueError("Unrecognised argument(s): " + ", ".join(kwargs))


def _root_call(method, msg, args, kwargs):
    if not root.handlers:
        basicConfig()
    getattr(root, method)(msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    _root_call("debug", msg, args, kwargs)


def info(msg, *args, **kwargs):
    _root_call("info", msg, args, kwargs)


def warning(msg, *args, **kwargs):
    _root_call("warning", msg, args, kwargs)


warn = warning


def error(msg, *args, **kwargs):
    _root_call("error", msg, args, kwargs)


def exception(msg, *args, exc_info=True, **kwargs):
    _root_call("error", msg, args, dict(kwargs, exc_info=exc_info))


def critical(msg, *args, **kwargs):
    _root_call("critical", msg, args, kwargs)


fatal = critical


def log(level, msg, *args, **kwargs):
    if not root.handlers:
        basicConfig()
    root.log(level, msg, *args, **kwargs)


def disable(level=CRITICAL):
    global _disabled_at
    _disabled_at = _check_level(level)


def shutdown():
    pass


def captureWarnings(capture):
    pass
