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
        return env.get(variable(argument));
    }

    /** {@code APX_PORT} for {@code --port}, {@code APX_APP} for APP. */
    static String variable(CommandLine.Model.ArgSpec argument) {
        String name = argument instanceof CommandLine.Model.OptionSpec option ? option.longestName().replaceFirst("^-+", "") : "app";
        return "APX_" + name.replace('-', '_').toUpperCase(Locale.ROOT);
    }
}
