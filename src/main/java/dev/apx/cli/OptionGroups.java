package dev.apx.cli;

import dev.apx.config.ApxConfig;
import dev.apx.config.Defaults;
import dev.apx.config.Setting;
import dev.apx.config.Settings;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The command line's options by topic: the order and headings of {@code apx --help}, and of the
 * settings reference ({@link SettingsReference}) built from the same model. The layout is click's, as
 * Uvicorn's help: the option and its value in a column, the description beside it, the default last.
 */
final class OptionGroups {
    /** The description column (click's), and the width the help is wrapped to. */
    private static final int DESCRIPTION_COLUMN = 32;
    private static final int WIDTH = 80;

    record Group(String heading, List<String> options) {
    }

    static final List<Group> GROUPS = List.of(
            new Group("App", List.of("APP", "--factory", "--app-dir", "--interface", "--lifespan", "--env-file", "--python",
                    "--root-path")),
            new Group("Socket", List.of("--host", "--port", "--uds", "--fd", "--backlog")),
            new Group("Processes and reload", List.of("--workers", "--reload", "--reload-dir", "--reload-include",
                    "--reload-exclude", "--reload-delay", "--limit-max-requests", "--limit-max-requests-jitter",
                    "--timeout-worker-healthcheck")),
            new Group("Python runtime", List.of("--interpreters", "--loop", "--io", "--blocking-threads", "--gc-threshold",
                    "--slow-callback-duration", "--reset-contextvars", "--warmup", "--warmup-mode")),
            new Group("HTTP", List.of("--http", "--http2", "--h2c-upgrade", "--h2-max-concurrent-streams",
                    "--h2-max-header-list-size", "--h2-initial-window-size", "--h2-max-frame-size", "--proxy-headers",
                    "--forwarded-allow-ips", "--server-header", "--date-header", "--header")),
            new Group("Limits and timeouts", List.of("--limit-concurrency", "--limit-request-line", "--limit-request-fields",
                    "--limit-request-field-size", "--limit-request-headers", "--h11-max-incomplete-event-size",
                    "--limit-max-body", "--timeout-keep-alive", "--timeout-request-header", "--timeout-request-body", "--timeout-write",
                    "--timeout-graceful-shutdown")),
            new Group("WebSockets", List.of("--ws", "--ws-max-size", "--ws-max-queue", "--ws-ping-interval",
                    "--ws-ping-timeout", "--ws-per-message-deflate")),
            new Group("TLS", List.of("--ssl-certfile", "--ssl-keyfile", "--ssl-keyfile-password", "--ssl-version",
                    "--ssl-cert-reqs", "--ssl-ca-certs", "--ssl-ciphers", "--ssl-engine")),
            new Group("Logging", List.of("--log-level", "--log-config", "--access-log", "--use-colors")),
            new Group("Metrics", List.of("--metrics", "--metrics-host", "--metrics-port")),
            new Group("Other", List.of("--version", "--help")));

    private OptionGroups() {
    }

    /** The option (or APP) of {@code spec} called {@code name}; fails for a name the command does not have. */
    static ArgSpec arg(CommandSpec spec, String name) {
        if (name.equals("APP")) {
            return spec.positionalParameters().getFirst();
        }
        OptionSpec option = spec.findOption(name);
        if (option == null) {
            throw new IllegalStateException("OptionGroups names " + name + ", which apx does not have");
        }
        return option;
    }

    /** {@code --port PORT}, {@code --access-log / --no-access-log}, {@code APP}: how a user writes it. */
    static String label(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return arg.paramLabel();
        }
        String name = option.longestName();
        if (option.negatable()) {
            return name + " / --no-" + name.substring(2);
        }
        if (!option.typeInfo().isBoolean()) {
            return name + " " + option.paramLabel();
        }
        return option.arity().max() > 0 ? name + " [" + option.paramLabel() + "]" : name;
    }

    /**
     * The default in words, or null when there is none to tell (a flag that is off, help, version): the
     * option's own (a value of its syntax, as {@code --http auto}), else its setting's ({@link Defaults}).
     */
    static String defaultText(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        String value = option.defaultValue();
        if ((value == null || value.isEmpty()) && arg.description().length == 0) { // an alias's default is its setting's option's
            Setting setting = setting(arg);
            value = setting == null ? null : setting.defaultValue();
        }
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (option.typeInfo().isBoolean() && (value.equals("true") || value.equals("on"))) {
            return "on";
        }
        if (option.typeInfo().isBoolean() && (value.equals("false") || value.equals("off"))) {
            return option.negatable() || option.arity().max() > 0 ? "off" : null;
        }
        return value;
    }

    /** The setting of {@link ApxConfig} that the option sets (its {@code descriptionKey}), or null (help, version). */
    static Setting setting(ArgSpec arg) {
        String key = arg.descriptionKey();
        return Settings.ALL.stream().filter(setting -> setting.key().equals(key)).findFirst().orElse(null);
    }

    /** The environment variable that sets an option when it is not given: {@code APX_PORT}; see {@link EnvDefaults}. */
    static String envVar(ArgSpec arg) {
        if (arg instanceof OptionSpec option && (option.usageHelp() || option.versionHelp())) {
            return null;
        }
        return EnvDefaults.variable(arg);
    }

    /**
     * The line of {@code --help}: the option's own description (an option whose values are the command
     * line's syntax, as {@code --http 1}, or an alias), else its setting's summary.
     */
    static String description(ArgSpec arg) {
        String[] own = arg.description();
        if (own.length > 0) {
            return own[0];
        }
        return setting(arg).summary();
    }

    /** What the settings reference adds to it: the further elements of the option's own description, else its setting's details. */
    static String details(ArgSpec arg) {
        String[] own = arg.description();
        if (own.length > 0) {
            return String.join(" ", java.util.Arrays.copyOfRange(own, 1, own.length));
        }
        return setting(arg).details();
    }

    /** Every option and APP in its group, in order: what {@code --help} and the settings reference show. */
    static Map<Group, List<ArgSpec>> grouped(CommandSpec spec) {
        Map<Group, List<ArgSpec>> grouped = new LinkedHashMap<>();
        for (Group group : GROUPS) {
            List<ArgSpec> args = new ArrayList<>();
            for (String name : group.options()) {
                args.add(arg(spec, name));
            }
            grouped.put(group, args);
        }
        return grouped;
    }

    /** Replaces picocli's option and parameter lists with the grouped one. */
    static void install(CommandLine commandLine) {
        Map<String, CommandLine.IHelpSectionRenderer> sections = commandLine.getHelpSectionMap();
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_PARAMETER_LIST, help -> "");
        sections.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> render(help.commandSpec()));
    }

    static String render(CommandSpec spec) {
        StringBuilder out = new StringBuilder();
        grouped(spec).forEach((group, args) -> {
            out.append('\n').append(group.heading()).append(":\n");
            for (ArgSpec arg : args) {
                String byDefault = defaultText(arg);
                appendEntry(out, label(arg), description(arg), byDefault == null ? null : "[default: " + byDefault + "]");
            }
        });
        return out.toString();
    }

    /** {@code "  label"} padded to the description column (or alone on its line when longer), then the wrapped text and default. */
    private static void appendEntry(StringBuilder out, String label, String text, String byDefault) {
        String first = "  " + label;
        int width = WIDTH - DESCRIPTION_COLUMN;
        List<String> lines = new ArrayList<>(wrap(text, width));
        if (byDefault != null) { // kept whole: on the last line when it fits, else on one of its own
            String last = lines.getLast();
            if (last.length() + 1 + byDefault.length() <= width) {
                lines.set(lines.size() - 1, last + " " + byDefault);
            } else {
                lines.add(byDefault);
            }
        }
        if (first.length() > DESCRIPTION_COLUMN - 2) {
            out.append(first).append('\n');
            first = "";
        }
        for (String line : lines) {
            out.append(first).append(" ".repeat(DESCRIPTION_COLUMN - first.length())).append(line).append('\n');
            first = "";
        }
    }

    /** Greedy word wrap; a word longer than the width (a path) stays whole on its own line. */
    static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" +")) {
            if (!line.isEmpty() && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.isEmpty() ? "" : " ").append(word);
        }
        lines.add(line.toString());
        return lines;
    }

    static String anchor(Group group) {
        return group.heading().toLowerCase(Locale.ROOT).replace(' ', '-');
    }
}
