"""uvicorn.run()'s keyword arguments as apx command-line flags (Uvicorn's flag names).

OPTIONS names every keyword of uvicorn.run (Uvicorn 0.54) with Uvicorn's default, its flag and how
its value is written. A keyword is forwarded only when its value differs from the default, so the
command line shows what the caller chose and the server's own defaults (the same as Uvicorn's) do
the rest. Values that only make sense inside one Python process (a protocol class, an SSL context
factory) are refused with a one-line reason.
"""

import configparser
import json
import logging
import os
import tempfile

# kinds of values
VALUE = "value"  # --flag VALUE
NAME = "name"  # --flag NAME, where Uvicorn also takes a class or factory
FLAG = "flag"  # --flag when true
SWITCH = "switch"  # --flag / --no-flag
BOOLEAN = "boolean"  # --flag true|false
SECONDS_OR_NONE = "seconds"  # --flag SECONDS; None (off) is 0
EACH = "each"  # --flag once per item
COMMA_LIST = "comma-list"  # --flag a,b
HEADERS = "headers"  # --header name:value per (name, value)
LOG_LEVEL = "log-level"  # a name, or a logging level number
LOG_CONFIG = "log-config"  # a path; a dict, ConfigParser or file is written to a temporary file
UNSUPPORTED = "unsupported"

UVICORN_LOGGING_CONFIG = object()  # stands for uvicorn.config.LOGGING_CONFIG, Uvicorn's default (apx's own format)

OPTIONS = {
    "host": ("127.0.0.1", "--host", VALUE),
    "port": (8000, "--port", VALUE),
    "uds": (None, "--uds", VALUE),
    "fd": (None, "--fd", VALUE),
    "loop": ("auto", "--loop", NAME),
    "http": ("auto", "--http", NAME),
    "http2": (False, "--http2", FLAG),
    "ws": ("auto", "--ws", NAME),
    "ws_max_size": (16777216, "--ws-max-size", VALUE),
    "ws_max_queue": (32, "--ws-max-queue", VALUE),
    "ws_ping_interval": (20.0, "--ws-ping-interval", SECONDS_OR_NONE),
    "ws_ping_timeout": (20.0, "--ws-ping-timeout", SECONDS_OR_NONE),
    "ws_per_message_deflate": (True, "--ws-per-message-deflate", BOOLEAN),
    "lifespan": ("auto", "--lifespan", VALUE),
    "interface": ("auto", "--interface", VALUE),
    "reload": (False, "--reload", FLAG),
    "reload_dirs": (None, "--reload-dir", EACH),
    "reload_includes": (None, "--reload-include", EACH),
    "reload_excludes": (None, "--reload-exclude", EACH),
    "reload_delay": (0.25, "--reload-delay", VALUE),
    "workers": (None, "--workers", VALUE),
    "env_file": (None, "--env-file", VALUE),
    "log_config": (UVICORN_LOGGING_CONFIG, "--log-config", LOG_CONFIG),
    "log_level": (None, "--log-level", LOG_LEVEL),
    "access_log": (True, "--access-log", SWITCH),
    "proxy_headers": (True, "--proxy-headers", SWITCH),
    "server_header": (True, "--server-header", SWITCH),
    "date_header": (True, "--date-header", SWITCH),
    "forwarded_allow_ips": (None, "--forwarded-allow-ips", COMMA_LIST),
    "root_path": ("", "--root-path", VALUE),
    "limit_concurrency": (None, "--limit-concurrency", VALUE),
    "backlog": (2048, "--backlog", VALUE),
    "limit_max_requests": (None, "--limit-max-requests", VALUE),
    "limit_max_requests_jitter": (0, "--limit-max-requests-jitter", VALUE),
    "timeout_keep_alive": (5, "--timeout-keep-alive", VALUE),
    "timeout_graceful_shutdown": (None, "--timeout-graceful-shutdown", VALUE),
    "timeout_worker_healthcheck": (5, "--timeout-worker-healthcheck", VALUE),
    "ssl_keyfile": (None, "--ssl-keyfile", VALUE),
    "ssl_certfile": (None, "--ssl-certfile", VALUE),
    "ssl_keyfile_password": (None, "--ssl-keyfile-password", VALUE),
    "ssl_version": (17, "--ssl-version", VALUE),  # ssl.PROTOCOL_TLS_SERVER
    "ssl_cert_reqs": (0, "--ssl-cert-reqs", VALUE),  # ssl.CERT_NONE
    "ssl_ca_certs": (None, "--ssl-ca-certs", VALUE),
    "ssl_ciphers": (None, "--ssl-ciphers", VALUE),
    "ssl_context_factory": (None, None, UNSUPPORTED),
    "headers": (None, "--header", HEADERS),
    "use_colors": (None, "--use-colors", SWITCH),
    "app_dir": (None, "--app-dir", VALUE),
    "factory": (False, "--factory", FLAG),
    "h11_max_incomplete_event_size": (None, "--h11-max-incomplete-event-size", VALUE),
    "reset_contextvars": (False, "--reset-contextvars", FLAG),
}

WHY_UNSUPPORTED = {
    "ssl_context_factory": "apx's TLS is Java's (Netty), which cannot use a Python SSLContext; "
                           "pass ssl_certfile, ssl_keyfile and the other ssl_* options instead",
}

LOG_LEVELS = {5: "trace", logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warning",
              logging.ERROR: "error", logging.CRITICAL: "critical"}


def check_names(options):
    """TypeError for a keyword uvicorn.run does not take, worded as Python words it."""
    for name in options:
        if name not in OPTIONS:
            raise TypeError("run() got an unexpected keyword argument '%s'" % name)


def command_line(app, options, temporary_files):
    """apx's arguments for uvicorn.run(app, **options); files it writes are added to temporary_files."""
    args = []
    for name, value in options.items():
        default, flag, kind = OPTIONS[name]
        if value is default or value == default:
            continue
        args += _flag(name, flag, kind, value, temporary_files)
    return args + [app]


def _flag(name, flag, kind, value, temporary_files):
    if kind == UNSUPPORTED:
        raise ValueError("apx.run(%s=...) is not supported: %s" % (name, WHY_UNSUPPORTED[name]))
    if kind == FLAG:
        return [flag] if value else []
    if kind == SWITCH:
        if value is None:
            return []
        return [flag] if value else ["--no-" + flag[2:]]
    if kind == BOOLEAN:
        return [flag, "true" if value else "false"]
    if kind == SECONDS_OR_NONE:
        return [flag, "0" if value is None else str(value)]
    if value is None:
        return []
    if kind == NAME:
        if not isinstance(value, str):
            raise ValueError("apx.run(%s=%r): apx takes the name of the implementation (e.g. %s=%r), "
                             "not a class or factory: it runs the app in its own process"
                             % (name, value, name, OPTIONS[name][0]))
        return [flag, value]
    if kind == EACH:
        items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
        return [part for item in items for part in (flag, os.fspath(item))]
    if kind == COMMA_LIST:
        return [flag, value if isinstance(value, str) else ",".join(value)]
    if kind == HEADERS:
        return [part for header_name, header_value in value for part in (flag, "%s:%s" % (header_name, header_value))]
    if kind == LOG_LEVEL:
        if isinstance(value, int) and not isinstance(value, bool):
            if value not in LOG_LEVELS:
                raise ValueError("apx.run(log_level=%d): not one of the levels %s" % (value, sorted(LOG_LEVELS)))
            value = LOG_LEVELS[value]
        return [flag, str(value).lower()]
    if kind == LOG_CONFIG:
        return [flag, _log_config_file(value, temporary_files)]
    return [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]


def _log_config_file(value, temporary_files):
    """A path apx can read, as Uvicorn reads log configs: .json, .yaml/.yml, or else ini (fileConfig)."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, dict):
        suffix, text = ".json", json.dumps(value)
    elif isinstance(value, configparser.RawConfigParser):
        suffix, text = ".ini", _ini_text(value)
    elif hasattr(value, "read"):
        suffix, text = ".ini", value.read()
    else:
        raise ValueError("apx.run(log_config=%r): pass a path, a dict, a ConfigParser or a file" % (value,))
    handle, path = tempfile.mkstemp(prefix="apx-log-config-", suffix=suffix)
    temporary_files.append(path)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    return path


def _ini_text(parser):
    import io

    out = io.StringIO()
    parser.write(out)
    return out.getvalue()
