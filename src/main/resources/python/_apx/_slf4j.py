"""apx inside a host's JVM: Python's logging records go to the SLF4J loggers of the same names.

install(emit, threshold) is called once per runtime, before any app is imported. It puts a Handler on
the root logger that hands each record's logger name, level number and text (the message, then the
traceback and stack as logging's default Formatter appends them) to Java, where the host's backend
(Logback, Log4j 2) applies its levels, appenders and format.

Levels: Logger.isEnabledFor also asks Java for the SLF4J logger's level (cached per logger name for
REFRESH seconds, so a level changed in the backend applies within that), so a record nobody will see
is not made, and library code that checks isEnabledFor (httpcore's tracing) skips its work. The
root's level is lowered from WARNING to NOTSET: the backend's levels stand in for it, and a level an
app sets on a Python logger still applies first.
"""

import logging
import time

REFRESH = 1.0  # seconds a logger's SLF4J level is cached

_python_is_enabled_for = logging.Logger.isEnabledFor
_thresholds = {}  # logger name -> lowest Python level its SLF4J logger passes
_expires = 0.0
_java_threshold = None


def install(emit, threshold):
    """emit(name, levelno, text) logs in Java; threshold(name) is the lowest level SLF4J passes for name."""
    global _java_threshold
    _java_threshold = threshold
    logging.addLevelName(5, "TRACE")
    logging.Logger.isEnabledFor = _is_enabled_for
    root = logging.getLogger()
    root.addHandler(Slf4jHandler(emit))
    root.setLevel(logging.NOTSET)  # also empties every logger's isEnabledFor cache
    logging.captureWarnings(True)  # warnings.warn(...) as records of "py.warnings", not lines on stderr


def _threshold(name):
    global _expires
    now = time.monotonic()
    if now >= _expires:
        _thresholds.clear()
        _expires = now + REFRESH
    try:
        return _thresholds[name]
    except KeyError:
        pass
    try:
        level = _java_threshold(name)
    except Exception:  # never an error in the app's log call: the record goes on, and the handler reports what fails
        return logging.NOTSET
    _thresholds[name] = level
    return level


def _is_enabled_for(self, level):
    """Python's answer (disabled loggers, logging.disable, the levels set in Python), then SLF4J's."""
    return _python_is_enabled_for(self, level) and level >= _threshold(self.name)


class Slf4jHandler(logging.Handler):
    """Hands records to SLF4J. Java releases the GIL while the host's appenders write."""

    def __init__(self, emit):
        super().__init__()
        self._emit = emit

    def handle(self, record):
        # Without the handler's lock, unlike logging.Handler.handle: SLF4J's backends are thread-safe,
        # and with the lock held through the appenders' I/O every Python thread that logs would queue
        # behind it.
        passed = self.filter(record)
        if passed:
            if isinstance(passed, logging.LogRecord):  # 3.12+: a filter may hand back another record
                record = passed
            self.emit(record)
        return passed

    def emit(self, record):
        try:
            # a record made without isEnabledFor (Logger.handle, a QueueListener) is checked here,
            # before it is formatted
            if record.levelno >= _threshold(record.name):
                text = self.format(record)
                try:
                    self._emit(record.name, record.levelno, text)
                except UnicodeEncodeError:  # lone surrogates (undecodable bytes) have no UTF-8 for Java
                    self._emit(record.name, record.levelno, text.encode("utf-8", "backslashreplace").decode("utf-8"))
        except RecursionError:
            raise
        except Exception:
            self.handleError(record)
