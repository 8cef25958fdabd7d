package dev.apx;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README, docs/, the sources and the scripts describe apx as it is today: no tracker numbers,
 * no work sessions, no files a reader of the repository cannot open. Git keeps the history; a line that
 * slips back in fails here with its file and line.
 */
class DocsHygieneTest {
    private static final String ORDINAL = "(?:(?:twenty|thirty|forty|fifty)-)?(?:first|second|third|fourth|fifth|sixth|seventh"
            + "|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth"
            + "|nineteenth|twentieth|thirtieth|fortieth|fiftieth)|\\d+(?:st|nd|rd|th)";

    /** What history looks like, by name; each pattern is checked on every line of every file below. */
    static final Map<String, Pattern> HISTORY = Map.of(
            "a tracker issue (\"issue 28\")", Pattern.compile("\\bissues?\\s+#?\\d+", Pattern.CASE_INSENSITIVE),
            "a tracker reference (\"#28\")", Pattern.compile("(?<![\\w&/#])#\\d{1,4}\\b(?!;)"),
            "a numbered session (\"session 12\")", Pattern.compile("\\bsessions?\\s+\\d+", Pattern.CASE_INSENSITIVE),
            "a diary heading (\"tenth session\")",
            Pattern.compile("\\b(?:" + ORDINAL + ")(?:(?:,\\s*|\\s+and\\s+)(?:" + ORDINAL + "))*\\s+sessions?\\b",
                    Pattern.CASE_INSENSITIVE),
            "a file outside the repository", Pattern.compile("DESIGN\\.md|STYLE\\.md|\\.\\./shared|/work/shared|seeds/"));

    private static final Path REPO = Path.of("").toAbsolutePath();

    @Test
    void theReadmeTheDocsAndTheSourcesCarryNoHistory() throws IOException {
        assertThat(REPO.resolve("pom.xml")).as("tests run from the repository's root").exists();
        List<Path> files = new ArrayList<>();
        files.add(REPO.resolve("README.md"));
        files.add(REPO.resolve("pom.xml"));
        files.add(REPO.resolve("mkdocs.yml"));
        files.addAll(under("docs", ".md"));
        files.addAll(under("src/main", ".java", ".py"));
        files.addAll(under("src/test", ".java", ".py"));
        files.addAll(under("bin", ""));
        files.addAll(under("tools", ".java", ".py", ".sh"));
        files.addAll(under("pip", ".py", ".toml"));
        files.removeIf(f -> f.getFileName().toString().equals("DocsHygieneTest.java"));
        assertThat(files).as("files checked").hasSizeGreaterThan(100);

        List<String> found = new ArrayList<>();
        for (Path file : files) {
            found.addAll(historyIn(REPO.relativize(file).toString(), Files.readString(file, StandardCharsets.UTF_8)));
        }
        assertThat(found).as("history in the docs or sources (git keeps it; describe apx as it is)").isEmpty();
    }

    @Test
    void eachKindOfHistoryIsRecognised() {
        // the patterns themselves: each catches its kind, and none catches ordinary prose about sessions or issues
        assertThat(historyIn("x.md", "## Issue 28, thirty-first session (2026-12-07)")).hasSize(2);
        assertThat(historyIn("x.md", "measured in sessions 14-15")).hasSize(1);
        assertThat(historyIn("x.md", "the twenty-fourth and twenty-fifth sessions")).hasSize(1);
        assertThat(historyIn("x.java", "// fixed in #28, see DESIGN.md")).hasSize(2);
        assertThat(historyIn("x.java", " * as the seeds/bridge.txt says")).hasSize(1);
        assertThat(historyIn("x.md", "A WebSocket session ends with a close frame; issues with TLS go to the log."))
                .isEmpty();
        assertThat(historyIn("x.java", "{@link Foo#bar}, &#39; and 2 sessions at once")).isEmpty();
    }

    private static List<String> historyIn(String name, String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            for (Map.Entry<String, Pattern> kind : HISTORY.entrySet()) {
                Matcher m = kind.getValue().matcher(lines[i]);
                if (m.find()) {
                    found.add(name + ":" + (i + 1) + ": " + kind.getKey() + ": \"" + m.group() + "\"");
                }
            }
        }
        return found;
    }

    /** The files below {@code dir} whose names end in one of {@code suffixes} ("" for every file). */
    private static List<Path> under(String dir, String... suffixes) {
        Path root = REPO.resolve(dir);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> !p.toString().contains("__pycache__"))
                    .filter(p -> Stream.of(suffixes).anyMatch(s -> p.getFileName().toString().endsWith(s)))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
