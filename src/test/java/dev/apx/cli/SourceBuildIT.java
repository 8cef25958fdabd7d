package dev.apx.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bin/apx in a source tree without a jar (a fresh clone) builds it first and says what the build is
 * doing while it runs; the next run is silent. The build is a stand-in {@code mvn} on PATH that prints
 * Maven's step lines at Maven's pace and leaves the real apx.jar: what is under test is bin/apx's report
 * of a build, which a real one would make this test take minutes.
 */
class SourceBuildIT {
    private static final Path JAR = Path.of(System.getProperty("apx.jar", "target/apx.jar")).toAbsolutePath();
    private static final Path REPO = JAR.getParent().getParent();

    @TempDir
    Path tmp;

    record Run(int exitCode, String stdout, String stderr) {
    }

    @Test
    void aFirstRunShowsTheBuildsStepsAndTimeAndTheSecondIsQuiet() throws Exception {
        Path clone = cloneWith("""
                echo "[INFO] Scanning for projects..."
                sleep 2
                echo "[INFO] --- maven-resources-plugin:3.3.1:resources (default-resources) @ apx ---"
                sleep 1
                echo "[INFO] --- maven-compiler-plugin:3.14.0:compile (default-compile) @ apx ---"
                sleep 17
                echo "[INFO] --- maven-shade-plugin:3.6.0:shade (default) @ apx ---"
                mkdir -p target && cp "$APX_TEST_JAR" target/apx.jar
                sleep 1
                echo "[INFO] BUILD SUCCESS"
                """);

        Run first = run(clone);

        assertThat(first.exitCode()).as(first.stderr()).isZero();
        assertThat(first.stdout()).startsWith("apx ");
        List<String> lines = first.stderr().lines().toList();
        assertThat(lines.getFirst()).startsWith("apx: building " + clone.resolve("target/apx.jar") + " with Maven");
        assertThat(first.stderr()).containsPattern("apx: build: fetching Maven's plugins and apx's dependencies \\(\\d+ s\\)")
                .containsPattern("apx: build: copying resources \\(\\d+ s\\)")
                .containsPattern("apx: build: bundling the dependencies into apx.jar \\(\\d+ s\\)")
                .containsPattern("apx: built " + java.util.regex.Pattern.quote(clone.resolve("target/apx.jar").toString()) + " in \\d+ s");
        assertThat(lines.stream().filter(line -> line.startsWith("apx: build: compiling the Java sources (")).count())
                .as("a long step is told again every 15 s: %s", lines).isGreaterThanOrEqualTo(2);
        assertThat(first.stderr()).doesNotContain("[INFO]");

        Run second = run(clone);

        assertThat(second.exitCode()).isZero();
        assertThat(second.stderr()).as("nothing to build").isEmpty();
        assertThat(second.stdout()).isEqualTo(first.stdout());
    }

    @Test
    void aFailedBuildShowsMavensOutputAndExits1() throws Exception {
        Path clone = cloneWith("""
                echo "[INFO] --- maven-compiler-plugin:3.14.0:compile (default-compile) @ apx ---"
                echo "[ERROR] /src/main/java/dev/apx/cli/Main.java:[10,1] class, interface, enum, or record expected"
                exit 1
                """);

        Run failed = run(clone);

        assertThat(failed.exitCode()).isEqualTo(1);
        assertThat(failed.stderr()).contains("[ERROR] /src/main/java/dev/apx/cli/Main.java:[10,1] class, interface")
                .endsWith("apx: build failed\n");
    }

    /** A source tree (pom.xml, src/main, bin/) with no target/, and a stand-in mvn running {@code script}. */
    private Path cloneWith(String script) throws IOException {
        Path clone = Files.createDirectories(tmp.resolve("clone"));
        Files.createDirectories(clone.resolve("bin"));
        for (String name : List.of("apx", "apx-aot", "jdk.sh", "jvm.options")) {
            Files.copy(REPO.resolve("bin").resolve(name), clone.resolve("bin").resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
        }
        Files.writeString(clone.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(clone.resolve("src/main"));
        Path mvn = Files.createDirectories(tmp.resolve("fakebin")).resolve("mvn");
        Files.writeString(mvn, "#!/bin/sh\n" + script);
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        return clone;
    }

    private Run run(Path clone) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(clone.resolve("bin/apx").toString(), "--version")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(tmp.resolve("stdout.txt").toFile()).redirectError(tmp.resolve("stderr.txt").toFile());
        builder.environment().put("PATH", tmp.resolve("fakebin") + ":/usr/bin:/bin");
        builder.environment().put("APX_TEST_JAR", JAR.toString());
        Process process = builder.start();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("bin/apx finished").isTrue();
        return new Run(process.exitValue(), Files.readString(tmp.resolve("stdout.txt")), Files.readString(tmp.resolve("stderr.txt")));
    }
}
