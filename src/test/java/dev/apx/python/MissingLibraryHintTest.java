package dev.apx.python;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What apx tells a user whose Python has no libpython to embed. */
class MissingLibraryHintTest {
    @Test
    void debiansOwnPythonNamesThePackage() {
        assumeTrue(Files.exists(Path.of("/etc/debian_version")), "a Debian or Ubuntu machine");
        // /usr/bin/python3.11 of Debian 12, or a venv made from it, without the package libpython3.11
        Map<String, String> facts = Map.of("prefix", "/srv/app/.venv", "base_prefix", "/usr",
                "libdir", "/usr/lib/x86_64-linux-gnu", "instsoname", "libpython3.11.so.1.0");
        assertThat(PythonInstall.missingLibraryHint(facts, "3.11")).isEqualTo("; install it with: apt-get install libpython3.11");
    }

    @Test
    void anyOtherPythonIsToldWhatToLookFor() {
        Map<String, String> facts = Map.of("prefix", "/opt/python/3.14", "base_prefix", "/opt/python/3.14",
                "libdir", "/opt/python/3.14/lib", "instsoname", "libpython3.14.so.1.0");
        assertThat(PythonInstall.missingLibraryHint(facts, "3.14"))
                .isEqualTo("; install the package that provides it, or use a Python built with --enable-shared");
    }
}
