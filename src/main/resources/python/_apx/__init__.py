"""apx's own Python helpers, loaded into the embedded interpreter from the apx jar."""
import zipimport as _zipimport


def _forget_the_jar_outside_python():
    """Imported from apx.jar, zipimport caches the directory of the whole archive: its ~12,700
    entries (Netty's and apx's classes) cost ~6.5 MB in every runtime, after the app's import
    too (docs/interpreters.md, "Memory: the JVM's floor"). Only python/ is imported from the jar,
    so only its entries stay; the dict is shared with the jar's zipimporters, so it is emptied in
    place. An importlib.invalidate_caches() reads the whole directory again."""
    loader = __spec__.loader
    if not isinstance(loader, _zipimport.zipimporter):
        return  # from a classes directory (the tests, a source tree)
    files = _zipimport._zip_directory_cache.get(loader.archive)
    if files is not None:
        helpers = {name: entry for name, entry in files.items() if name.startswith(loader.prefix)}
        files.clear()
        files.update(helpers)


_forget_the_jar_outside_python()
