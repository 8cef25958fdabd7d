package dev.apx.cli;

import dev.apx.config.Setting;
import dev.apx.config.Settings;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/settings.md is what {@link SettingsReference} writes from the configuration model and the command
 * line: a setting or flag added, renamed or re-described without regenerating it fails here, and so does
 * a flag left out of {@link OptionGroups} (it would be missing from both {@code --help} and the page)
 * or one that sets no setting of the model.
 * Regenerate with {@code -Dapx.writeSettings=true}.
 */
class SettingsReferenceTest {
    private static final Path FILE = Path.of("docs/settings.md");

    @Test
    void docsSettingsIsUpToDate() throws IOException {
        String expected = SettingsReference.markdown();
        if (Boolean.getBoolean("apx.writeSettings")) {
            Files.writeString(FILE, expected);
        }
        assertThat(FILE).as("docs/settings.md; regenerate with -Dapx.writeSettings=true").isRegularFile();
        assertThat(Files.readString(FILE)).as("docs/settings.md is out of date; regenerate with -Dapx.writeSettings=true")
                .isEqualTo(expected);
    }

    @Test
    void everyOptionIsInExactlyOneGroup() {
        CommandLine.Model.CommandSpec spec = new CommandLine(new Main()).getCommandSpec();
        List<String> grouped = new ArrayList<>();
        OptionGroups.GROUPS.forEach(group -> grouped.addAll(group.options()));
        Set<String> all = new HashSet<>();
        spec.options().forEach(option -> all.add(option.longestName()));
        all.add("APP");

        assertThat(grouped).as("an option listed twice").doesNotHaveDuplicates();
        assertThat(grouped).as("options of apx that no group of --help lists").containsAll(all);
        assertThat(all).as("group entries that are no option of apx").containsAll(grouped);
    }

    @Test
    void everyOptionHasARowWithItsEnvironmentVariableAndAMeaning() throws IOException {
        String page = Files.readString(FILE);
        for (ArgSpec arg : SettingsReference.documented()) {
            String label = OptionGroups.label(arg);
            assertThat(OptionGroups.description(arg)).as("%s's meaning", label).isNotBlank();
            boolean helpOrVersion = arg instanceof OptionSpec option && (option.usageHelp() || option.versionHelp());
            String row = page.lines().filter(line -> line.startsWith("| `" + label.replace("|", "\\|") + "` |")).findFirst().orElse(null);
            assertThat(row).as("a row for %s in docs/settings.md", label).isNotNull();
            if (!helpOrVersion) {
                assertThat(row).as("%s's environment variable", label).contains("| `APX_");
            }
        }
    }

    @Test
    void everySettingHasAnOptionAndEveryOptionASetting() {
        CommandLine.Model.CommandSpec spec = new CommandLine(new Main()).getCommandSpec();
        List<String> keys = new ArrayList<>();
        spec.args().forEach(arg -> keys.add(arg.descriptionKey()));
        for (Setting setting : Settings.ALL) {
            assertThat(keys).as("an option that sets %s", setting.key()).contains(setting.key());
        }
        for (OptionSpec option : spec.options()) {
            if (!option.usageHelp() && !option.versionHelp()) {
                assertThat(OptionGroups.setting(option)).as("the setting %s sets", option.longestName()).isNotNull();
            }
        }
        assertThat(SettingsReference.documented()).as("every option once, and APP").hasSize(spec.options().size() + 1)
                .doesNotHaveDuplicates();
    }
}
