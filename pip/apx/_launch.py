"""The java command that runs the apx.jar shipped in this package.

JVM options, as bin/jdk.sh's apx_java_args: the java @argfile jvm.options beside the jar
(bin/jvm.options, the one file every launcher passes), then -XX:AOTCache=apx.aot -Xlog:aot=off
-XX:Tier2ProfileDelayFactor=1 when an AOT cache beside the jar is not older than it, was
trained with this jar (apx.aot.jar names it, as bin/apx-aot writes it; the wheel ships no cache, see
docs/pip.md) and the JVM accepts it with the user's options, then -XX:CICompilerCount=3
below 4 CPUs, then -XX:-UseSerialGC when $APX_JAVA_OPTS selects a collector (the JVM refuses two), then
$APX_JAVA_OPTS.
The embedded Python is the one this launcher runs on: APX_PYTHON is set to sys.executable unless
the caller set it (a --python flag still wins, as always).
"""

import os
import shlex
import sys

from apx._java import find_java

HERE = os.path.dirname(os.path.abspath(__file__))
JAR = os.path.join(HERE, "apx.jar")
JVM_OPTIONS = os.path.join(HERE, "jvm.options")
AOT_CACHE = os.path.join(HERE, "apx.aot")
AOT_TRAINED_FOR = AOT_CACHE + ".jar"


class JarMissing(Exception):
    pass


def command(args, environ=None):
    """[java, jvm options..., -jar, apx.jar, args...]; raises JavaNotFound or JarMissing."""
    environ = os.environ if environ is None else environ
    if not os.path.isfile(JAR):
        raise JarMissing("%s is missing: this apx package is incomplete; reinstall it from a wheel built by bin/wheel" % JAR)
    java = find_java(environ)
    return [java, *jvm_options(java, environ), "-jar", JAR, *args]


def jvm_options(java, environ):
    base = ["@" + JVM_OPTIONS] if os.path.isfile(JVM_OPTIONS) else ["--enable-native-access=ALL-UNNAMED", "-Xss4m"]
    user = shlex.split(environ.get("APX_JAVA_OPTS", ""))
    # a second C2 thread below 4 CPUs, as in bin/jdk.sh (the default from 4 CPUs on is 3 or more)
    jit = ["-XX:CICompilerCount=3"] if _cpus() < 4 else []
    rest = jit + (["-XX:-UseSerialGC"] if any(o.startswith("-XX:+Use") and o.endswith("GC") for o in user) else []) + user
    try:
        fresh = os.path.getmtime(AOT_CACHE) >= os.path.getmtime(JAR)
    except OSError:
        fresh = False  # no cache
    if fresh and _trained_for() != os.path.realpath(JAR):
        # a cache used with another jar gives apx's classes that jar's location (none once it is gone)
        sys.stderr.write("apx: ignoring the AOT cache %s: it was trained with %s, not this jar (bin/apx-aot trains one for it)\n"
                         % (AOT_CACHE, _trained_for() or "an unknown jar"))
        fresh = False
    # the cache's profiles wait less at tier 2, as in bin/jdk.sh
    aot = ["-XX:AOTCache=" + AOT_CACHE, "-Xlog:aot=off", "-XX:+UnlockDiagnosticVMOptions", "-XX:Tier2ProfileDelayFactor=1"] if fresh else []
    if aot and user and _refuses_cache(java, base + aot + rest):
        sys.stderr.write("apx: the JVM cannot use the AOT cache with APX_JAVA_OPTS=%r (its heap is too small at start); "
                         "starting without it\n" % environ.get("APX_JAVA_OPTS"))
        aot = []
    return base + aot + rest


def _trained_for():
    try:
        with open(AOT_TRAINED_FOR, encoding="utf-8") as record:
            return record.read().strip()
    except OSError:
        return ""


def _cpus():
    try:
        return len(os.sched_getaffinity(0))  # what nproc counts: the CPUs this process may run on
    except (AttributeError, OSError):
        return os.cpu_count() or 4


def _refuses_cache(java, options):
    # A heap whose initial old generation cannot hold the cache's archived objects (-Xmn at or near
    # -Xms) makes the JVM refuse to start at all; any other mismatch only costs the speed-up.
    import subprocess
    try:
        probe = subprocess.run([java, *options, "-jar", JAR, "--version"], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return "Unable to use AOT cache" in probe.stdout + probe.stderr


def batch_scheduling(environ=None):
    """SCHED_BATCH for this process (then the server's, which inherits it) unless APX_SCHED=normal,
    as bin/apx does with chrt: no wake-up preemption between the server's threads (docs/server.md).
    Quietly skipped where the OS has no such policy or refuses it."""
    environ = os.environ if environ is None else environ
    if environ.get("APX_SCHED", "batch") == "normal":
        return
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        pass


def environment(environ=None):
    """The server's environment: the caller's, with APX_PYTHON naming this interpreter."""
    env = dict(os.environ if environ is None else environ)
    if not env.get("APX_PYTHON") and sys.executable:
        env["APX_PYTHON"] = sys.executable
    # Runtimes of --interpreters N past the 11th need more static TLS than glibc reserves by default;
    # glibc reads its tunables only at process start, so the JVM must get it (docs/interpreters.md).
    tunables = env.get("GLIBC_TUNABLES", "")
    if "glibc.rtld.optional_static_tls=" not in tunables:
        env["GLIBC_TUNABLES"] = (tunables + ":" if tunables else "") + "glibc.rtld.optional_static_tls=1024"
    return env
