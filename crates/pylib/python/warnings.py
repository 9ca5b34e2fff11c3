"""warnings: warnings shown on standard error, once per message, unless filtered."""

import _playground

_filters = []
_shown = set()


def _action_for(message, category):
    for action, text, kind in _filters:
        if issubclass(category, kind) and (not text or str(message).startswith(text)):
            return action
    return "default"


def warn(message, category=None, stacklevel=1, source=None, **kwargs):
    if isinstance(message, Warning):
        category = message.__class__
    if category is None:
        category = UserWarning
    action = _action_for(message, category)
    if action == "ignore":
        return
    if action == "error":
        raise message if isinstance(message, Warning) else category(message)
    if action != "always":
        key = (str(message), category)
        if key in _shown:
            return
        _shown.add(key)
    text = f"{category.__name__}: {message}\n"
    if _log is not None:
        _log.append(WarningMessage(message, category))
        return
    _playground.write_stderr(text)


def warn_explicit(message, category, filename, lineno, **kwargs):
    warn(message, category)


def filterwarnings(action, message="", category=Warning, module="", lineno=0, append=False):
    entry = (action, message, category)
    if append:
        _filters.append(entry)
    else:
        _filters.insert(0, entry)


def simplefilter(action, category=Warning, lineno=0, append=False):
    filterwarnings(action, "", category, append=append)


def resetwarnings():
    _filters.clear()


class WarningMessage:
    def __init__(self, message, category, filename="script.py", lineno=0):
        self.message = message if isinstance(message, Warning) else category(message)
        self.category = category
        self.filename = filename
        self.lineno = lineno

    def __str__(self):
        return f"{{message : {self.message!r}, category : {self.category.__name__!r}}}"


_log = None


class catch_warnings:
    def __init__(self, *, record=False, action=None, category=Warning):
        self._record = record
        self._action = action
        self._category = category

    def __enter__(self):
        global _log
        self._saved = (list(_filters), set(_shown), _log)
        if self._action is not None:
            simplefilter(self._action, self._category)
        if self._record:
            _log = []
            _shown.clear()
            return _log
        return None

    def __exit__(self, *exc_info):
        global _log
        filters, shown, log = self._saved
        _filters[:] = filters
        _shown.clear()
        _shown.update(shown)
        _log = log
        return False
