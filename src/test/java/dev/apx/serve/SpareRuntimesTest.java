package dev.apx.serve;

import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --reload}'s spare runtime: started ahead with what the serving code imported from installed
 * places (stdlib, site-packages) already imported, and nothing of the app's own code, which a reload
 * must import fresh.
 */
class SpareRuntimesTest {
    @TempDir
    Path appDir;

    @Test
    void aSpareHasTheInstalledModulesOfTheServingCodeButNoneOfTheAppsOwn() throws Exception {
        Files.writeString(appDir.resolve("spare_user_code.py"), "import h11._connection\nimport json\n");
        Interpreter serving = TestPython.interpreter();
        serving.run(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                path.callMethod(gil, "insert", 0, appDir.toString()).close();
            }
            gil.importModule("spare_user_code").close();
        });

        List<Object> installed = serving.call(gil -> {
            try (PyRef preload = gil.importModule("_apx._preload");
                 PyRef names = preload.callMethod(gil, "installed_modules", List.of(appDir.toString()))) {
                return List.copyOf((List<?>) names.toJava(gil));
            }
        });
        assertThat(installed).contains("json", "h11", "h11._connection").doesNotContain("spare_user_code", "__main__")
                .noneMatch(name -> name.toString().startsWith("apxtest")); // the tests' own apps, not installed either

        SpareRuntimes spares = new SpareRuntimes(TestPython.install(), Map.of("APX_SPARE_TEST", "set before the imports"), List.of(appDir));
        spares.prepare(1, serving);
        List<Interpreter> taken = spares.take(1);
        assertThat(taken).hasSize(1);
        Interpreter spare = taken.getFirst();
        assertThat(spare).isNotSameAs(serving);
        assertThat(loaded(spare, "h11._connection")).as("site-packages: imported ahead").isTrue();
        assertThat(loaded(spare, "json")).as("the standard library: imported ahead").isTrue();
        assertThat(loaded(spare, "spare_user_code")).as("the app's own module: left for the reload").isFalse();
        Object env = spare.call(gil -> {
            try (PyRef os = gil.importModule("os"); PyRef environ = os.getAttr(gil, "environ");
                 PyRef value = environ.callMethod(gil, "get", "APX_SPARE_TEST")) {
                return value.toJava(gil);
            }
        });
        assertThat(env).isEqualTo("set before the imports");
        assertThat(spares.take(1)).as("a set of spares is given once").isEmpty();
    }

    private static boolean loaded(Interpreter runtime, String module) {
        return runtime.call(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef modules = sys.getAttr(gil, "modules");
                 PyRef found = modules.callMethod(gil, "get", module)) {
                return !found.isNone(gil);
            }
        });
    }
}
