package dev.apx.python;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A CPython installation (or venv) as its own interpreter describes it: version, the shared
 * libpython to embed, and the {@code sys.path} that {@code python -c "import app"} would see.
 *
 * <p>Chosen by {@link #locate}: {@code --python PATH}, else {@code $VIRTUAL_ENV}, else
 * {@code python3} on {@code PATH}. Every way this can fail is a {@link PythonSetupException}
 * with a one-line message.
 */
public record PythonInstall(
        Path executable, String version, Path library, List<String> sysPath, String prefix) {

    public static final int MIN_MINOR = 11;
    public static final int MAX_MINOR = 15;
    private static final long PROBE_TIMEOUT_SECONDS = 60;

    public PythonInstall {
        sysPath = List.copyOf(sysPath);
    }

    /** "3.12" */
    public String minorVersion() {
        String[] parts = version.split("\\.");
        return parts[0] + "." + parts[1];
    }

    /** Finds the interpreter to embed, from an explicit path or the environment. */
    public static PythonInstall locate(Optional<Path> flag, Map<String, String> env) {
        if (flag.isPresent()) {
            return probe(flag.get(), "--python");
        }
        String venv = env.get("VIRTUAL_ENV");
        if (venv != null && !venv.isBlank()) {
            Path candidate = Path.of(venv, "bin", "python");
            if (!Files.isExecutable(candidate)) {
                throw new PythonSetupException("VIRTUAL_ENV is " + venv + " but " + candidate
                        + " is not an executable Python; activate a valid venv or pass --python PATH");
            }
            return probe(candidate, "$VIRTUAL_ENV");
        }
        Path onPath = findOnPath("python3", env.getOrDefault("PATH", ""))
                .orElseThrow(() -> new PythonSetupException(
                        "no Python found: no python3 on PATH and no VIRTUAL_ENV; pass --python PATH"));
        return probe(onPath, "PATH");
    }

    /** Asks {@code executable} to describe itself and checks that apx can embed it. */
    public static PythonInstall probe(Path executable, String source) {
        if (!Files.exists(executable)) {
            throw new PythonSetupException("no Python found at " + executable + " (from " + source + ")");
        }
        if (!Files.isExecutable(executable) || Files.isDirectory(executable)) {
            throw new PythonSetupException(executable + " (from " + source + ") is not an executable file");
        }
        Map<String, String> facts = new HashMap<>();
        List<String> sysPath = new ArrayList<>();
        for (String line : runProbe(executable)) {
            int tab = line.indexOf('\t');
            if (tab < 0) {
                continue;
            }
            String key = line.substring(0, tab);
            String value = line.substring(tab + 1);
            if (key.equals("path")) {
                sysPath.add(value);
            } else {
                facts.put(key, value);
            }
        }
        String version = facts.get("version");
        if (version == null) {
            throw new PythonSetupException(executable + " is not a working Python interpreter (it did not report a version)");
        }
        String where = "Python " + version + " at " + executable;
        if (!"cpython".equals(facts.get("implementation"))) {
            throw new PythonSetupException(where + " is " + facts.get("implementation") + ", not CPython; apx embeds CPython 3." + MIN_MINOR + " to 3." + MAX_MINOR);
        }
        String[] parts = version.split("\\.");
        int major = Integer.parseInt(parts[0]);
        int minor = Integer.parseInt(parts[1]);
        if (major != 3 || minor < MIN_MINOR) {
            throw new PythonSetupException(where + " is too old: apx needs CPython 3." + MIN_MINOR + " to 3." + MAX_MINOR);
        }
        if (minor > MAX_MINOR) {
            throw new PythonSetupException(where + " is newer than apx supports: apx needs CPython 3." + MIN_MINOR + " to 3." + MAX_MINOR);
        }
        if (!"0".equals(facts.getOrDefault("gil_disabled", "0"))) {
            // The bridge's step lock and its lock-free reads of loop._ready rest on the GIL (docs/python-versions.md).
            throw new PythonSetupException(where + " is a free-threaded build; apx needs a build with the GIL");
        }
        if (!"1".equals(facts.get("enable_shared"))) {
            throw new PythonSetupException(where + " was built without --enable-shared, so it has no libpython to embed;"
                    + " use a shared build (pyenv: PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install " + version + ")");
        }
        // distributions ship libpython apart from the interpreter (Debian's libpython3.X, Fedora's python3-libs)
        String soname = facts.getOrDefault("instsoname", "").contains(".so") ? facts.get("instsoname") : facts.get("ldlibrary");
        Path library = findLibrary(facts).orElseThrow(() -> new PythonSetupException(where + " has no " + soname + " in "
                + facts.get("libdir") + " to embed; install it: apt-get install libpython3." + minor
                + " (Debian, Ubuntu) or dnf install python3-libs (Fedora)"));
        String reported = facts.getOrDefault("executable", "");
        Path exe = reported.isEmpty() ? executable.toAbsolutePath() : Path.of(reported);
        return new PythonInstall(exe, version, library, sysPath, facts.getOrDefault("prefix", ""));
    }

    private static Optional<Path> findLibrary(Map<String, String> facts) {
        String libdir = facts.getOrDefault("libdir", "");
        for (String name : List.of(facts.getOrDefault("ldlibrary", ""), facts.getOrDefault("instsoname", ""))) {
            if (!name.isEmpty() && !libdir.isEmpty() && name.contains(".so")) {
                Path candidate = Path.of(libdir, name);
                if (Files.exists(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    private static List<String> runProbe(Path executable) {
        Path out = null;
        Path err = null;
        Process process = null;
        try {
            // Files, not pipes: a chatty or hung interpreter can neither fill a pipe nor outlast the timeout.
            out = Files.createTempFile("apx-probe", ".out");
            err = Files.createTempFile("apx-probe", ".err");
            process = new ProcessBuilder(executable.toString(), "-c", probeSource())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!process.waitFor(PROBE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new PythonSetupException(executable + " did not answer within " + PROBE_TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                String reason = Files.readString(err, StandardCharsets.UTF_8).strip();
                String last = reason.isEmpty() ? "exit code " + process.exitValue() : reason.lines().reduce((a, b) -> b).orElse(reason);
                throw new PythonSetupException(executable + " is not a working Python interpreter: " + last);
            }
            return Files.readAllLines(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new PythonSetupException(executable + " could not be run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PythonSetupException("interrupted while asking " + executable + " about itself");
        } finally {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }

    private static String probeSource() {
        try (InputStream in = PythonInstall.class.getResourceAsStream("/python/_apx/_probe.py")) {
            if (in == null) {
                throw new IllegalStateException("resource /python/_apx/_probe.py is missing from the apx build");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<Path> findOnPath(String name, String path) {
        for (String dir : path.split(java.io.File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
