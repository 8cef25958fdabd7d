# Run by apx with the *target* interpreter (`python -c <this file>`), before anything is embedded:
# reports what apx needs to load that interpreter's libpython and to reproduce its sys.path.
# Output: one "key<TAB>value" per line; "path" repeats, in sys.path order.
import os
import sys
import sysconfig


def main():
    var = sysconfig.get_config_var
    print("implementation\t" + sys.implementation.name)
    print("version\t%d.%d.%d" % sys.version_info[:3])
    print("executable\t" + (sys.executable or ""))
    print("prefix\t" + sys.prefix)
    print("base_prefix\t" + getattr(sys, "base_prefix", sys.prefix))
    print("enable_shared\t" + str(var("Py_ENABLE_SHARED") or 0))
    print("gil_disabled\t" + str(var("Py_GIL_DISABLED") or 0))
    for name in ("LIBDIR", "LDLIBRARY", "INSTSONAME"):
        print("%s\t%s" % (name.lower(), var(name) or ""))
    for entry in sys.path:
        print("path\t" + entry)


main()
