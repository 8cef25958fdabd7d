package dev.apx.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code apx --help} prints: grouped, 80 columns, about Uvicorn's length, with none of the old glitches. */
class HelpTest {
    private static String help() {
        CommandLine commandLine = new CommandLine(new Main());
        OptionGroups.install(commandLine);
        return commandLine.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    @Test
    void fitsEightyColumnsAndIsGroupedByTopic() {
        List<String> lines = help().lines().toList();

        assertThat(lines.getFirst()).isEqualTo("Usage: apx [OPTIONS] APP");
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(80));
        assertThat(lines.size()).as("Uvicorn 0.54's --help is 125 lines for 62 options; apx has 82").isLessThanOrEqualTo(140);
        assertThat(lines).containsSubsequence("App:", "Socket:", "Processes and reload:", "Python runtime:", "HTTP:",
                "Limits and timeouts:", "WebSockets:", "TLS:", "Logging:", "Metrics:", "Other:");
    }

    @Test
    void describesAppAsAsgiOrWsgiAndShowsDefaultsUnambiguously() {
        String help = help();

        assertThat(help).contains("  APP                           module:attribute of an ASGI or WSGI app.")
                .contains("--app-dir DIR                 Import APP from this directory. [default: .]")
                .contains("--port PORT                   Bind to this port (0: any free). [default: 8000]")
                .contains("--access-log / --no-access-log")
                .doesNotContain("Default: ..", "http: //", "--[no-]", "issue", "session", "${DEFAULT-VALUE}");
        assertThat(help).as("a [default: ...] is never split across lines").doesNotContainPattern("\\[default:\\s*\\n");
    }
}
