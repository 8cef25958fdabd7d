"""The java command that runs the apx.jar shipped in this package.

JVM options come from jvm.options beside the jar (the same file bin/apx reads in a source tree:
one option per line, # comments), then $APX_JAVA_OPTS. The embedded Python is the one this
launcher runs on: APX_PYTHON is set to sys.executable unless the caller set it (a --python flag
still wins, as always).
"""

import os
import shlex
import sys

from apx._java import find_java

HERE = os.path.dirname(os.path.abspath(__file__))
JAR = os.path.join(HERE, "apx.jar")
JVM_OPTIONS = os.path.join(HERE, "jvm.options")


class JarMissing(Exception):
    pass


def command(args, environ=None):
    """[java, jvm options..., -jar, apx.jar, args...]; raises JavaNotFound or JarMissing."""
    environ = os.environ if environ is None else environ
    if not os.path.isfile(JAR):
        raise JarMissing("%s is missing: this apx package is incomplete; reinstall it from a wheel built by bin/wheel" % JAR)
    java = find_java(environ)
    return [java, *jvm_options(environ), "-jar", JAR, *args]


def jvm_options(environ):
    options = []
    try:
        with open(JVM_OPTIONS, encoding="utf-8") as lines:
            for line in lines:
                line = line.strip()
                if line and not line.startswith("#"):
                    options.append(line)
    except FileNotFoundError:
        options = ["--enable-native-access=ALL-UNNAMED", "-Xss4m"]
    options += shlex.split(environ.get("APX_JAVA_OPTS", ""))
    return options


def environment(environ=None):
    """The server's environment: the caller's, with APX_PYTHON naming this interpreter."""
    env = dict(os.environ if environ is None else environ)
    if not env.get("APX_PYTHON") and sys.executable:
        env["APX_PYTHON"] = sys.executable
    return env
