package dev.apx.python;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Where Python finds apx's own package {@code _apx}, shipped as resources under {@code python/}.
 *
 * <p>From a classes directory Python reads the files in place; from a jar that is a file of its own,
 * zipimport reads them inside it. Any other home (a jar nested in Spring Boot's executable jar, a
 * class loader with a URL scheme of its own) is one Python cannot read: the files are then copied, once,
 * into a directory named after the hash of their contents, which concurrent JVMs share. A JVM
 * writes a temporary directory beside it and renames it into place, so no JVM ever imports from a
 * half-written one; a directory whose files differ from the resources (edited, truncated) is replaced.
 *
 * <p>The files to copy are named in {@code python/_apx.files}, since a class loader cannot list a
 * directory; {@code HelperFilesTest} checks that list against the sources.
 */
final class HelperFiles {
    /** One name a line, relative to {@code python/}. */
    static final String LIST = "python/_apx.files";
    static final String MARKER = "python/_apx/__init__.py";
    /** A JVM-wide override of where the copies go, for hosts whose home and temporary directories are not writable. */
    static final String CACHE_DIR_PROPERTY = "apx.cache.dir";

    private HelperFiles() {
    }

    /**
     * The {@code sys.path} entry that holds {@code _apx}, for the resources of apx's own class loader.
     * Found through the class loader the JVM runs with, not the class's CodeSource: classes from an AOT
     * cache keep the CodeSource of the jar the cache was trained with, which is null or another copy's
     * jar once the install has moved.
     *
     * @throws PythonSetupException if Python cannot read the resources and no directory takes a copy
     */
    static String pythonPath() {
        return pythonPath(name -> Interpreter.class.getResource("/" + name), cacheDirs());
    }

    /**
     * The {@code sys.path} entry that holds {@code _apx}: the directory or jar its resources are in if
     * Python can read it, otherwise a copy in the first of {@code cacheDirs} that can hold one.
     *
     * @param resources finds a resource by its name ({@code python/_apx/__init__.py}); null if absent
     */
    static String pythonPath(Function<String, URL> resources, List<Path> cacheDirs) {
        URL marker = resources.apply(MARKER);
        if (marker == null) {
            throw new IllegalStateException("apx's Python helpers (python/_apx) are not on the class path");
        }
        String readable = readableByPython(marker);
        if (readable != null) {
            return readable;
        }
        Map<String, byte[]> files = read(resources);
        String hash = hash(files);
        List<String> failures = new ArrayList<>();
        for (Path dir : cacheDirs) {
            try {
                return extract(files, dir, "python-" + hash).toString();
            } catch (IOException | RuntimeException e) {
                failures.add(dir + ": " + e);
            }
        }
        throw new PythonSetupException("apx's Python helpers are at " + marker + ", where Python cannot import them, and"
                + " no directory could take a copy (" + String.join("; ", failures) + "). Set -D" + CACHE_DIR_PROPERTY
                + "=DIR to a writable directory.");
    }

    /** The path Python can import from, or null: a {@code file:} directory, or a {@code file:} jar not nested in another. */
    private static String readableByPython(URL marker) {
        try {
            switch (marker.getProtocol()) {
                case "file" -> {
                    return Path.of(marker.toURI()).getParent().getParent().toString();
                }
                case "jar" -> { // jar:file:/dir/apx.jar!/python/_apx/__init__.py
                    String spec = marker.toString();
                    String jar = spec.substring("jar:".length(), spec.lastIndexOf("!/"));
                    if (!jar.startsWith("file:") || jar.contains("!/")) {
                        return null;
                    }
                    Path file = Path.of(new URI(jar));
                    return Files.isRegularFile(file) ? file + "/python" : null;
                }
                default -> {
                    return null;
                }
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The listed files' bytes by their path under {@code python/}, in the list's order. */
    private static Map<String, byte[]> read(Function<String, URL> resources) {
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (String name : lines(bytes(resources, LIST))) {
            if (name.contains("..") || name.startsWith("/")) {
                throw new IllegalStateException(LIST + " names " + name + ", outside python/");
            }
            files.put(name, bytes(resources, "python/" + name));
        }
        if (!files.containsKey("_apx/__init__.py")) {
            throw new IllegalStateException(LIST + " does not name _apx/__init__.py");
        }
        return files;
    }

    private static List<String> lines(byte[] list) {
        return new String(list, StandardCharsets.UTF_8).lines().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    private static byte[] bytes(Function<String, URL> resources, String name) {
        URL url = resources.apply(name);
        if (url == null) {
            throw new IllegalStateException("resource " + name + " is missing from the apx build");
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + url, e);
        }
    }

    private static String hash(Map<String, byte[]> files) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            files.forEach((name, content) -> {
                sha.update(name.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(Long.toString(content.length).getBytes(StandardCharsets.US_ASCII));
                sha.update((byte) 0);
                sha.update(content);
            });
            return HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code root/name} holding exactly {@code files}' contents, written there if it does not. */
    private static Path extract(Map<String, byte[]> files, Path root, String name) throws IOException {
        ownDirectory(root);
        Path target = root.resolve(name);
        if (holds(target, files)) {
            return target;
        }
        Path temp = Files.createTempDirectory(root, name + ".tmp-");
        try {
            for (Map.Entry<String, byte[]> file : files.entrySet()) {
                Path path = temp.resolve(file.getKey());
                Files.createDirectories(path.getParent());
                Files.write(path, file.getValue());
            }
            for (int attempt = 0; ; attempt++) {
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                    return target;
                } catch (AtomicMoveNotSupportedException e) {
                    throw new IOException("cannot rename within " + root + " atomically", e);
                } catch (IOException e) {
                    // rename(2) refuses a non-empty target: another JVM renamed its copy into place
                    // first, or a damaged copy is in the way
                    if (holds(target, files)) {
                        return target;
                    }
                    if (!Files.exists(target) || attempt == 2) {
                        throw e;
                    }
                    moveAsideAndDelete(target);
                }
            }
        } finally {
            deleteTree(temp);
        }
    }

    /** True if {@code dir} has every file with the same bytes; Python's {@code __pycache__} beside them is fine. */
    private static boolean holds(Path dir, Map<String, byte[]> files) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try {
            for (Map.Entry<String, byte[]> file : files.entrySet()) {
                Path path = dir.resolve(file.getKey());
                if (!Files.isRegularFile(path) || Files.size(path) != file.getValue().length
                        || !Arrays.equals(Files.readAllBytes(path), file.getValue())) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Creates {@code root} if needed and refuses one another user could write into: Python would
     * run whatever such a user put there.
     */
    private static void ownDirectory(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            try {
                Files.createDirectories(root, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (UnsupportedOperationException e) {
                Files.createDirectories(root);
            }
        }
        try {
            // uids, not names: a container's user often has no name (user.name is then "?")
            String owner = Files.getAttribute(root, "unix:uid").toString();
            String me = uid();
            if (!owner.equals(me)) {
                throw new IOException(root + " belongs to uid " + owner + ", not to this process's uid " + me);
            }
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(root);
            if (permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new IOException(root + " is writable by other users (" + PosixFilePermissions.toString(permissions) + ")");
            }
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // not a POSIX file system, or no /proc: nothing more to check
        }
    }

    private static void moveAsideAndDelete(Path target) throws IOException {
        Path aside = target.resolveSibling(target.getFileName() + ".stale-" + System.nanoTime());
        try {
            Files.move(target, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.NoSuchFileException e) {
            return; // another JVM moved it first
        }
        deleteTree(aside);
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException ignored) {
                    // a leftover temporary file is harmless: the next copy has a fresh name
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // as above
        }
    }

    /** {@code -Dapx.cache.dir}, else {@code $XDG_CACHE_HOME/apx} or {@code ~/.cache/apx}, then {@code $TMPDIR/apx-UID}. */
    private static List<Path> cacheDirs() {
        String configured = System.getProperty(CACHE_DIR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return List.of(Path.of(configured));
        }
        List<Path> dirs = new ArrayList<>();
        String xdg = System.getenv("XDG_CACHE_HOME");
        String home = System.getProperty("user.home");
        if (xdg != null && !xdg.isBlank()) {
            dirs.add(Path.of(xdg, "apx"));
        } else if (home != null && !home.isBlank() && !home.equals("?")) {
            dirs.add(Path.of(home, ".cache", "apx"));
        }
        dirs.add(Path.of(System.getProperty("java.io.tmpdir"), "apx-" + uid()));
        return dirs;
    }

    /** This process's uid, or its user name where there is no {@code /proc}. */
    private static String uid() {
        try {
            return Files.getAttribute(Path.of("/proc/self"), "unix:uid").toString();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return System.getProperty("user.name", "user");
        }
    }
}
