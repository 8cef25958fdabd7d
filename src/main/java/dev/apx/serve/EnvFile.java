package dev.apx.serve;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --env-file}: KEY=VALUE lines (blank lines, {@code #} comments and {@code export } allowed; quotes stripped). */
final class EnvFile {
    private EnvFile() {
    }

    static Map<String, String> read(Path file) throws IOException {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String text = line.strip();
            if (text.isEmpty() || text.startsWith("#") || !text.contains("=")) {
                continue;
            }
            if (text.startsWith("export ")) {
                text = text.substring(7).strip();
            }
            int eq = text.indexOf('=');
            String value = text.substring(eq + 1).strip();
            if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"") || value.startsWith("'") && value.endsWith("'"))) {
                value = value.substring(1, value.length() - 1);
            }
            values.put(text.substring(0, eq).strip(), value);
        }
        return values;
    }
}
