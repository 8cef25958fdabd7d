"""--log-config: apx's server and access records through Python's logging, as Uvicorn emits them.

configure() reads the file as Uvicorn's Config.configure_logging does (.json and .yaml/.yml through
dictConfig, anything else through fileConfig), then Java hands each line to server() or access():
server lines on "uvicorn.error", access records on "uvicorn.access" with Uvicorn's message and args
(client_addr, method, path_with_query, http_version, status_code), so that uvicorn.logging's
AccessFormatter, JSON formatters and filters written for Uvicorn work unchanged.
"""

import json
import logging
import logging.config

TRACE = 5
LEVELS = {"critical": logging.CRITICAL, "error": logging.ERROR, "warning": logging.WARNING,
          "info": logging.INFO, "debug": logging.DEBUG, "trace": TRACE}
ACCESS_FORMAT = '%s - "%s %s HTTP/%s" %d'

_error = logging.getLogger("uvicorn.error")  # exists before the config, as in Uvicorn (disable_existing_loggers applies)
_access = None


def configure(path, log_level, access_log):
    """Applies the file; log_level (a name or None) and access_log as Uvicorn applies them after it."""
    global _access
    try:
        _apply(path)
    except Exception as error:  # one line for apx: error, with the cause dictConfig chains (a handler that fails to import)
        cause = error.__cause__
        raise ValueError("%s: %s%s" % (type(error).__name__, error, " (%s)" % cause if cause else "")) from None
    _access = logging.getLogger("uvicorn.access")
    if log_level is not None:
        for name in ("uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
            logging.getLogger(name).setLevel(LEVELS[log_level])
    if not access_log:
        _access.handlers = []
        _access.propagate = False


def _apply(path):
    logging.addLevelName(TRACE, "TRACE")
    if path.endswith(".json"):
        with open(path) as file:
            logging.config.dictConfig(json.load(file))
    elif path.endswith((".yaml", ".yml")):
        try:
            import yaml
        except ImportError:
            raise ImportError("Install the PyYAML package to use --log-config with YAML files") from None
        with open(path) as file:
            logging.config.dictConfig(yaml.safe_load(file))
    else:
        logging.config.fileConfig(path, disable_existing_loggers=False)


def threshold():
    """The lowest level uvicorn.error passes now (a config can disable it, as Uvicorn's): Java sends nothing below it."""
    return logging.CRITICAL + 1 if _error.disabled else _error.getEffectiveLevel()


def server(level, message):
    _error.log(level, message)


def access(client, method, path, http_version, status):
    _access.info(ACCESS_FORMAT, client, method, path, http_version, status)
