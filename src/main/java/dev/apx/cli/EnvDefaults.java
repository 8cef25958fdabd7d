package dev.apx.cli;

import picocli.CommandLine;

import java.util.Locale;
import java.util.Map;

/** Option defaults from the environment, Uvicorn-style with the APX_ prefix: {@code --port} from {@code APX_PORT}. */
final class EnvDefaults implements CommandLine.IDefaultValueProvider {
    private final Map<String, String> env;

    EnvDefaults(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argument) {
        String name;
        if (argument instanceof CommandLine.Model.OptionSpec option) {
            name = option.longestName().replaceFirst("^-+", "");
        } else {
            name = "app";
        }
        return env.get("APX_" + name.replace('-', '_').toUpperCase(Locale.ROOT));
    }
}
