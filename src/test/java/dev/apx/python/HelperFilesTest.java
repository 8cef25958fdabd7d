package dev.apx.python;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * apx's Python helpers reach Python from any class loader: in place where Python can read them (a
 * directory, a jar of its own), else as one shared copy in a cache directory (a jar nested in Spring
 * Boot's executable jar serves its resources through a URL scheme Python knows nothing of; here a
 * scheme of the test's own plays that part). A real Python imports from the copy.
 */
class HelperFilesTest {
    private static final String PYTHON = System.getProperty("apx.test.python", ".venv/py3.11/bin/python");

    @TempDir
    Path temp;

    @Test
    void helpersPythonCannotReadAreCopiedOnceAndPythonImportsThem() throws Exception {
        Path cache = temp.resolve("cache");
        String path = HelperFiles.pythonPath(unreadable(realFiles()), List.of(cache));

        assertThat(Path.of(path).getParent()).isEqualTo(cache);
        assertThat(Path.of(path).getFileName().toString()).matches("python-[0-9a-f]{24}");
        for (Map.Entry<String, byte[]> file : realFiles().entrySet()) {
            if (file.getKey().startsWith("python/_apx/")) {
                assertThat(Path.of(path, file.getKey().substring("python/".length()))).hasBinaryContent(file.getValue());
            }
        }
        String imported = python("import sys; sys.path.insert(0, sys.argv[1]); import _apx, _apx._errors, _apx._asgi;"
                + " print(_apx.__file__)", path);
        assertThat(imported).isEqualTo(path + "/_apx/__init__.py");
        try (Stream<Path> entries = Files.list(cache)) {
            assertThat(entries).as("no temporary directory is left").containsExactly(Path.of(path));
        }
    }

    @Test
    void aSecondStartReusesTheCopyWithoutRewritingIt() throws Exception {
        Path cache = temp.resolve("cache");
        Function<String, URL> resources = unreadable(realFiles());
        Path first = Path.of(HelperFiles.pythonPath(resources, List.of(cache)));
        Path init = first.resolve("_apx/__init__.py");
        FileTime old = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(init, old);

        assertThat(HelperFiles.pythonPath(resources, List.of(cache))).isEqualTo(first.toString());
        assertThat(Files.getLastModifiedTime(init)).isEqualTo(old);
    }

    @Test
    void concurrentStartsShareOneCompleteCopy() throws Exception {
        Path cache = temp.resolve("cache");
        Function<String, URL> resources = unreadable(realFiles());
        int starts = 8;
        CountDownLatch go = new CountDownLatch(1);
        List<Future<String>> paths = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(starts)) {
            for (int i = 0; i < starts; i++) {
                paths.add(pool.submit((Callable<String>) () -> {
                    go.await();
                    return HelperFiles.pythonPath(resources, List.of(cache));
                }));
            }
            go.countDown();
            String first = paths.getFirst().get(60, TimeUnit.SECONDS);
            for (Future<String> path : paths) {
                assertThat(path.get(60, TimeUnit.SECONDS)).isEqualTo(first);
            }
            try (Stream<Path> entries = Files.list(cache)) {
                assertThat(entries).containsExactly(Path.of(first));
            }
            assertThat(python("import sys; sys.path.insert(0, sys.argv[1]); import _apx._bridge; print('ok')", first)).isEqualTo("ok");
        }
    }

    @Test
    void aDamagedCopyIsReplaced() throws Exception {
        Path cache = temp.resolve("cache");
        Function<String, URL> resources = unreadable(realFiles());
        Path copy = Path.of(HelperFiles.pythonPath(resources, List.of(cache)));
        Files.writeString(copy.resolve("_apx/_asgi.py"), "raise ImportError('half written')");
        Files.delete(copy.resolve("_apx/_errors.py"));

        assertThat(HelperFiles.pythonPath(resources, List.of(cache))).isEqualTo(copy.toString());
        assertThat(copy.resolve("_apx/_asgi.py")).hasBinaryContent(realFiles().get("python/_apx/_asgi.py"));
        assertThat(copy.resolve("_apx/_errors.py")).hasBinaryContent(realFiles().get("python/_apx/_errors.py"));
        try (Stream<Path> entries = Files.list(cache)) {
            assertThat(entries).containsExactly(copy);
        }
    }

    @Test
    void otherHelpersGetADirectoryOfTheirOwn() {
        Path cache = temp.resolve("cache");
        Map<String, byte[]> changed = new HashMap<>(realFiles());
        changed.put("python/_apx/_hello.py", "# another apx version\n".getBytes(StandardCharsets.UTF_8));

        String one = HelperFiles.pythonPath(unreadable(realFiles()), List.of(cache));
        String other = HelperFiles.pythonPath(unreadable(changed), List.of(cache));
        assertThat(other).isNotEqualTo(one);
        assertThat(Path.of(other, "_apx/_hello.py")).hasContent("# another apx version");
    }

    @Test
    void aCacheOtherUsersCanWriteIsPassedOverForTheNext() throws Exception {
        Path shared = Files.createDirectory(temp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path own = temp.resolve("own");

        String path = HelperFiles.pythonPath(unreadable(realFiles()), List.of(shared, own));
        assertThat(Path.of(path).getParent()).isEqualTo(own);
        try (Stream<Path> entries = Files.list(shared)) {
            assertThat(entries).isEmpty();
        }
    }

    @Test
    void aCacheAnotherUserOwnsIsPassedOverForTheNext() throws Exception {
        Path theirs = Files.createDirectory(temp.resolve("theirs"));
        try {
            Files.setAttribute(theirs, "unix:uid", 65534);
        } catch (IOException e) {
            assumeTrue(false, "giving a directory to another user needs root: " + e);
        }
        Path own = temp.resolve("own");

        String path = HelperFiles.pythonPath(unreadable(realFiles()), List.of(theirs, own));
        assertThat(Path.of(path).getParent()).isEqualTo(own);
        try (Stream<Path> entries = Files.list(theirs)) {
            assertThat(entries).isEmpty();
        }
    }

    @Test
    void noWritableDirectoryIsAClearError() throws Exception {
        Path file = Files.writeString(temp.resolve("a-file"), "x");
        assertThatThrownBy(() -> HelperFiles.pythonPath(unreadable(realFiles()), List.of(file.resolve("cache"))))
                .isInstanceOf(PythonSetupException.class)
                .hasMessageContaining("apxtest:/python/_apx/__init__.py")
                .hasMessageContaining("where Python cannot import them")
                .hasMessageContaining(file.resolve("cache").toString())
                .hasMessageContaining("-Dapx.cache.dir=DIR");
    }

    @Test
    void aDirectoryOrAJarOfItsOwnIsUsedInPlace() throws Exception {
        Path classes = Files.createDirectories(temp.resolve("classes/python/_apx"));
        Files.writeString(classes.resolve("__init__.py"), "");
        Path jar = temp.resolve("helpers.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream zip = new JarOutputStream(out)) {
            zip.putNextEntry(new JarEntry("python/_apx/__init__.py"));
            zip.closeEntry();
        }
        Path cache = temp.resolve("cache");
        try (URLClassLoader fromDir = new URLClassLoader(new URL[]{temp.resolve("classes").toUri().toURL()}, null);
             URLClassLoader fromJar = new URLClassLoader(new URL[]{jar.toUri().toURL()}, null)) {
            assertThat(HelperFiles.pythonPath(fromDir::getResource, List.of(cache))).isEqualTo(temp.resolve("classes/python").toString());
            assertThat(HelperFiles.pythonPath(fromJar::getResource, List.of(cache))).isEqualTo(jar + "/python");
        }
        assertThat(cache).doesNotExist();
    }

    @Test
    void theListNamesEveryHelper() throws Exception {
        Path dir = Path.of(HelperFilesTest.class.getResource("/python/_apx/__init__.py").toURI()).getParent();
        List<String> onDisk;
        try (Stream<Path> files = Files.walk(dir)) {
            onDisk = files.filter(Files::isRegularFile).filter(f -> f.toString().endsWith(".py"))
                    .map(f -> "_apx/" + dir.relativize(f).toString().replace('\\', '/')).sorted().toList();
        }
        List<String> listed = Files.readAllLines(Path.of(HelperFilesTest.class.getResource("/" + HelperFiles.LIST).toURI()))
                .stream().map(String::strip).filter(line -> !line.isEmpty()).sorted().toList();
        assertThat(listed).as("src/main/resources/" + HelperFiles.LIST + " names every .py file under python/_apx").isEqualTo(onDisk);
    }

    /** The list and every file it names, read from this build's classes. */
    private static Map<String, byte[]> realFiles() {
        Map<String, byte[]> files = new HashMap<>();
        byte[] list = resource(HelperFiles.LIST);
        files.put(HelperFiles.LIST, list);
        for (String name : new String(list, StandardCharsets.UTF_8).lines().filter(line -> !line.isBlank()).toList()) {
            files.put("python/" + name.strip(), resource("python/" + name.strip()));
        }
        return files;
    }

    private static byte[] resource(String name) {
        try (InputStream in = HelperFilesTest.class.getResourceAsStream("/" + name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Resources behind a URL scheme of their own, which Python cannot open, as a nested jar's are. */
    private static Function<String, URL> unreadable(Map<String, byte[]> files) {
        URLStreamHandler handler = new URLStreamHandler() {
            @Override
            protected URLConnection openConnection(URL url) {
                byte[] content = files.get(url.getPath().substring(1));
                return new URLConnection(url) {
                    @Override
                    public void connect() {
                    }

                    @Override
                    public InputStream getInputStream() throws IOException {
                        if (content == null) {
                            throw new IOException("no " + url);
                        }
                        return new ByteArrayInputStream(content);
                    }
                };
            }
        };
        return name -> {
            if (!files.containsKey(name)) {
                return null;
            }
            try {
                return URL.of(URI.create("apxtest:/" + name), handler);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    private static String python(String code, String arg) throws Exception {
        Process process = new ProcessBuilder(Path.of(PYTHON).toAbsolutePath().toString(), "-c", code, arg)
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out;
    }
}
