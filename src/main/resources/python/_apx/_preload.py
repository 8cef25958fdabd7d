# --reload's spare runtime: what the app imports from outside the code being edited (the standard
# library, site-packages) is imported ahead, in an idle runtime, so that a reload only has to import
# the app's own modules. Uvicorn's reload pays for every import again; this is most of why apx's is faster.
import importlib
import os
import sys
import sysconfig


def installed_modules(user_dirs):
    """Names of the loaded modules whose file is in an installed location (stdlib, site-packages) and
    not under any of user_dirs (the app dir, the reload dirs), in the order they were imported."""
    paths = sysconfig.get_paths()
    installed = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    installed.update(os.path.realpath(p) for p in sys.path if "site-packages" in p or "dist-packages" in p)
    user = [os.path.realpath(d) for d in user_dirs]
    names = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path or name == "__main__" or name.startswith("_apx"):
            continue
        path = os.path.realpath(path)
        if any(_under(path, d) for d in user):
            continue
        if any(_under(path, d) for d in installed):
            names.append(name)
    return names


def import_all(names):
    """Imports each name; one that fails is skipped (the app's own import will meet it, or not). Returns how many loaded."""
    loaded = 0
    for name in names:
        try:
            importlib.import_module(name)
            loaded += 1
        except BaseException:  # noqa: BLE001: an import's side effects are the app's business, never the spare's end
            pass
    return loaded


def _under(path, directory):
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
