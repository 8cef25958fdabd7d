"""apx.run(): uvicorn.run's call, serving the app from apx's JVM as a child process.

Returns None after a clean shutdown and raises SystemExit with the server's exit code otherwise
(1: the app or socket could not be set up, 3: lifespan startup failed), as uvicorn.run does.
While it runs, SIGINT, SIGTERM, SIGHUP, SIGTTIN and SIGTTOU sent to this process go to the server,
which runs in its own process group so that a terminal's Ctrl+C reaches it once, not twice.
"""

import os
import signal
import site
import subprocess
import sys
import threading

from apx import _options
from apx._java import JavaNotFound
from apx._launch import JarMissing, batch_scheduling, command, environment

STARTUP_FAILURE = 3  # uvicorn.config.STARTUP_FAILURE
FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGTTIN", "SIGTTOU")


def run(app, **options):
    """Serve `app` ("module:attribute") with apx; takes uvicorn.run's keyword arguments."""
    _options.check_names(options)
    if not isinstance(app, str):
        _import_string_required(app)
    temporary_files = []
    try:
        args = _options.command_line(app, options, temporary_files)
        try:
            java_command = command(args)
        except (JavaNotFound, JarMissing) as e:
            print("apx: error: %s" % e, file=sys.stderr)
            sys.exit(1)
        inherited = (options["fd"],) if options.get("fd") is not None else ()  # fd=N: the server needs that socket
        code = _run_child(java_command, _child_environment(), inherited)
    finally:
        for path in temporary_files:
            os.unlink(path)
    if code != 0:
        sys.exit(code if code > 0 else 128 - code)
    return None


def _import_string_required(app):
    """Uvicorn's answer where it needs an import string; apx always does (the app loads in the JVM)."""
    guess = _import_string_of(app)
    example = guess or "main:app"
    print("apx: error: You must pass the application as an import string to run it with apx, "
          "e.g. apx.run(%r): apx imports the app in its own embedded Python" % example, file=sys.stderr)
    sys.exit(STARTUP_FAILURE)


def _import_string_of(app):
    """'module:name' for an object bound at a module's top level, best effort (None when unknown)."""
    for module_name, module in list(sys.modules.items()):
        try:
            names = [name for name, value in vars(module).items() if value is app and not name.startswith("_")]
        except TypeError:  # not a module (sys.modules may hold anything)
            continue
        if names:
            module_name = _main_module_name(module) if module_name == "__main__" else module_name
            if module_name:
                return "%s:%s" % (module_name, names[0])
    return None


def _main_module_name(main):
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name:
        return spec.name
    path = getattr(main, "__file__", None)
    if path and path.endswith(".py"):
        return os.path.splitext(os.path.basename(path))[0]
    return None


def _child_environment():
    """The caller's sys.path entries that a fresh interpreter would not have (the script's directory,
    entries it inserted) go first on PYTHONPATH, so "module:app" imports as it would in this process."""
    env = environment()
    installed = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                                               getattr(site, "USER_SITE", None) or sys.prefix)}
    extra = []
    for entry in sys.path:
        path = os.path.realpath(entry or os.getcwd())
        if os.path.isdir(path) and path not in extra and not any(path == p or path.startswith(p + os.sep) for p in installed):
            extra.append(path)
    if env.get("PYTHONPATH"):
        extra.append(env["PYTHONPATH"])
    if extra:
        env["PYTHONPATH"] = os.pathsep.join(extra)
    return env


def _run_child(java_command, env, pass_fds=()):
    # The forwarding handlers go in before the fork: the server then starts with these signals at
    # their defaults (exec resets caught signals), even where this process inherited SIGINT ignored
    # (a background job of a script), and a signal that lands before Popen returns is kept for it.
    process = None
    pending = []

    def forward(signum, frame):
        if process is None:
            pending.append(signum)
        else:
            process.send_signal(signum)

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in FORWARDED_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                previous[number] = signal.signal(number, forward)
    try:
        process = subprocess.Popen(java_command, env=env, process_group=0, pass_fds=pass_fds,
                                   preexec_fn=_child_setup(env))
        for signum in pending:
            process.send_signal(signum)
        return process.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if process is not None and process.poll() is None:  # an exception here (not a signal): leave no server behind
            process.terminate()
            process.wait()


def _child_setup(env):
    """The preexec_fn of the server: SCHED_BATCH as the launchers give it (this Python keeps its own
    policy), and SIGTERM when this Python dies."""
    die_with_parent = _die_with_parent_hook()

    def setup():
        batch_scheduling(env)
        if die_with_parent is not None:
            die_with_parent()

    return setup


def _die_with_parent_hook():
    """Linux: a preexec_fn that has the server get SIGTERM when this Python dies first (even by
    SIGKILL), so no orphan keeps the port. libc is loaded here, before the fork: the child only calls."""
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def hook():
        prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return hook
