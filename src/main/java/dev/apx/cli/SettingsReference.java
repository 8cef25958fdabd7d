package dev.apx.cli;

import dev.apx.config.Setting;
import dev.apx.config.Settings;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes docs/settings.md from the configuration model ({@link Settings}: each setting's group, type,
 * default and meaning) and the command line (the options that set each one, by their
 * {@code descriptionKey}). {@code SettingsReferenceTest} fails when the file in the repository differs
 * from what this writes.
 *
 * <p>To rewrite the file after changing a setting or an option: run that test with {@code -Dapx.writeSettings=true}.
 */
public final class SettingsReference {
    private SettingsReference() {
    }

    /**
     * Writes the page.
     *
     * @param args the file to write, else docs/settings.md
     * @throws IOException the file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args.length > 0 ? args[0] : "docs/settings.md");
        Files.writeString(file, markdown());
    }

    /**
     * The whole page.
     *
     * @return its Markdown
     */
    public static String markdown() {
        CommandSpec spec = new CommandLine(new Main()).getCommandSpec();
        StringBuilder out = new StringBuilder();
        out.append("# Settings\n\n");
        out.append("Every setting of apx, grouped as in its configuration (`dev.apx.config.ApxConfig`, [Java](java.md)). On the\n");
        out.append("command line each is an option of `apx --help`; an option not given there is read from its environment\n");
        out.append("variable (`APX_PORT=8001` is `--port 8001`), and the command line wins over the environment. A flag that is\n");
        out.append("on or off takes `true` or `false` there (`APX_ACCESS_LOG=false`). From Java each is the builder method in\n");
        out.append("the Java column, in its group's builder: `ApxConfig.builder().bind(bind -> bind.port(8001))`.\n\n");
        out.append("This page is generated from apx's configuration model and command line (`dev.apx.cli.SettingsReference`);\n");
        out.append("a test fails when it is out of date.\n");
        for (Settings.Group group : Settings.GROUPS) {
            out.append("\n## ").append(group.title()).append(" (`").append(group.record()).append("`)\n\n");
            header(out);
            for (Setting setting : Settings.ALL) {
                if (setting.record().equals(group.record())) {
                    for (ArgSpec arg : options(spec, setting)) {
                        row(out, arg, setting);
                    }
                }
            }
        }
        out.append("\n## Command line only\n\n");
        header(out);
        for (ArgSpec arg : spec.options()) {
            if (OptionGroups.setting(arg) == null) {
                row(out, arg, null);
            }
        }
        return out.toString();
    }

    /** Every option and APP, in the page's order. */
    static List<ArgSpec> documented() {
        CommandSpec spec = new CommandLine(new Main()).getCommandSpec();
        List<ArgSpec> all = new ArrayList<>();
        for (Setting setting : Settings.ALL) {
            all.addAll(options(spec, setting));
        }
        spec.options().stream().filter(arg -> OptionGroups.setting(arg) == null).forEach(all::add);
        return all;
    }

    /** The options (or APP) that set {@code setting}, in {@code --help}'s order. */
    private static List<ArgSpec> options(CommandSpec spec, Setting setting) {
        List<ArgSpec> options = new ArrayList<>();
        OptionGroups.grouped(spec).values().forEach(args -> args.stream()
                .filter(arg -> setting.key().equals(arg.descriptionKey())).forEach(options::add));
        return options;
    }

    private static void header(StringBuilder out) {
        out.append("| Option | Environment | Java | Type | Default | Meaning |\n");
        out.append("|---|---|---|---|---|---|\n");
    }

    private static void row(StringBuilder out, ArgSpec arg, Setting setting) {
        String env = OptionGroups.envVar(arg);
        boolean ownSyntax = arg.description().length > 0; // an alias, or values of the command line's syntax
        String byDefault = setting != null && !ownSyntax ? setting.defaultValue() : OptionGroups.defaultText(arg);
        if (byDefault == null && arg.typeInfo().isBoolean() && env != null) {
            byDefault = "off"; // a flag: --help leaves that unsaid, as Uvicorn's does
        }
        String type = setting == null ? "" : setting.type();
        if (ownSyntax && arg.paramLabel().startsWith("[")) {
            type = arg.paramLabel().substring(1, arg.paramLabel().length() - 1);
        }
        out.append("| ").append(code(OptionGroups.label(arg)))
                .append(" | ").append(env == null ? "" : code(env))
                .append(" | ").append(setting == null ? "" : code(setting.name()))
                .append(" | ").append(type.isEmpty() ? "" : code(type))
                .append(" | ").append(byDefault == null || byDefault.isEmpty() ? "" : code(byDefault))
                .append(" | ").append(cell(meaning(arg, setting, ownSyntax)))
                .append(" |\n");
    }

    /** The option's meaning; for an alias or an option of the command line's own syntax, also its setting's. */
    private static String meaning(ArgSpec arg, Setting setting, boolean ownSyntax) {
        String meaning = (OptionGroups.description(arg) + " " + OptionGroups.details(arg)).strip();
        if (ownSyntax && setting != null) {
            meaning += " Java: `" + setting.name() + "` (" + setting.type() + ", default " + setting.defaultValue() + "): "
                    + setting.summary();
        }
        return meaning;
    }

    private static String code(String text) {
        return "`" + text.replace("|", "\\|") + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
