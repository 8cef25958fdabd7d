package dev.apx.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes docs/settings.md from the command line's own model: every option of {@code apx --help}, in
 * its groups, with its environment variable and default. {@code SettingsReferenceTest} fails when the
 * file in the repository differs from what this writes.
 *
 * <p>To rewrite the file after changing an option: run that test with {@code -Dapx.writeSettings=true}.
 */
public final class SettingsReference {
    private SettingsReference() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args.length > 0 ? args[0] : "docs/settings.md");
        Files.writeString(file, markdown());
    }

    /** The whole page. */
    public static String markdown() {
        CommandSpec spec = new CommandLine(new Main()).getCommandSpec();
        StringBuilder out = new StringBuilder();
        out.append("# Settings\n\n");
        out.append("Every option of `apx --help`, grouped as there. An option not given on the command line is read from its\n");
        out.append("environment variable (`APX_PORT=8001` is `--port 8001`); the command line wins over the environment.\n");
        out.append("A flag that is on or off takes `true` or `false` there (`APX_ACCESS_LOG=false`).\n\n");
        out.append("This page is generated from apx's command line (`dev.apx.cli.SettingsReference`); a test fails when it is out of date.\n");
        OptionGroups.grouped(spec).forEach((group, args) -> {
            out.append("\n## ").append(group.heading()).append("\n\n");
            out.append("| Option | Environment | Default | Meaning |\n");
            out.append("|---|---|---|---|\n");
            for (ArgSpec arg : args) {
                String env = OptionGroups.envVar(arg);
                String byDefault = OptionGroups.defaultText(arg);
                if (byDefault == null && arg.typeInfo().isBoolean() && env != null) {
                    byDefault = "off"; // a flag: --help leaves that unsaid, as Uvicorn's does
                }
                out.append("| ").append(code(OptionGroups.label(arg)))
                        .append(" | ").append(env == null ? "" : code(env))
                        .append(" | ").append(byDefault == null ? "" : code(byDefault))
                        .append(" | ").append(cell((OptionGroups.description(arg) + " " + OptionGroups.details(arg)).strip()))
                        .append(" |\n");
            }
        });
        return out.toString();
    }

    /** The options that have a row: every option of the command, and APP. */
    static List<ArgSpec> documented() {
        CommandSpec spec = new CommandLine(new Main()).getCommandSpec();
        return OptionGroups.grouped(spec).values().stream().flatMap(List::stream).toList();
    }

    private static String code(String text) {
        return "`" + text.replace("|", "\\|") + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
