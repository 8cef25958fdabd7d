package dev.apx.supervisor;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which changed files restart the worker, with Uvicorn's rules ({@code FileFilter} of its watchfiles
 * reloader): included by default {@code *.py}, excluded by default {@code .*}, {@code .py[cod]},
 * {@code .sw.*}, {@code ~*}; a default named by the other list is dropped; an exclude that is a
 * directory excludes everything under it. A pattern matches from the right, as Python's {@code PurePath.match}.
 */
final class ReloadFilter {
    private static final List<String> DEFAULT_INCLUDES = List.of("*.py");
    private static final List<String> DEFAULT_EXCLUDES = List.of(".*", ".py[cod]", ".sw.*", "~*");

    private final List<Pattern> includes = new ArrayList<>();
    private final List<Pattern> excludes = new ArrayList<>();
    private final List<Path> excludedDirs = new ArrayList<>();

    ReloadFilter(List<String> reloadIncludes, List<String> reloadExcludes) {
        Set<String> in = new LinkedHashSet<>();
        DEFAULT_INCLUDES.stream().filter(d -> !reloadExcludes.contains(d)).forEach(in::add);
        in.addAll(reloadIncludes);
        Set<String> ex = new LinkedHashSet<>();
        DEFAULT_EXCLUDES.stream().filter(d -> !reloadIncludes.contains(d)).forEach(ex::add);
        for (String exclude : reloadExcludes) {
            Path path = Path.of(exclude);
            if (Files.isDirectory(path)) {
                excludedDirs.add(path.toAbsolutePath().normalize());
            } else {
                ex.add(exclude);
            }
        }
        in.forEach(p -> includes.add(new Pattern(p)));
        ex.forEach(p -> excludes.add(new Pattern(p)));
    }

    boolean test(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        for (Pattern include : includes) {
            if (include.matches(absolute)) {
                if (absolute.toString().endsWith(include.glob)) {
                    return true; // named literally
                }
                for (Path dir : excludedDirs) {
                    if (absolute.startsWith(dir)) {
                        return false;
                    }
                }
                for (Pattern exclude : excludes) {
                    if (exclude.matches(absolute)) {
                        return false;
                    }
                }
                return true;
            }
        }
        return false;
    }

    /** A directory not worth watching: hidden ({@code .git}, {@code .venv}), {@code __pycache__}, or excluded. */
    boolean skipDirectory(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        Path name = absolute.getFileName();
        return name != null && (name.toString().startsWith(".") || name.toString().equals("__pycache__"))
                || excludedDirs.stream().anyMatch(absolute::startsWith);
    }

    /** A glob matched against as many trailing path components as it has. */
    private static final class Pattern {
        final String glob;
        final int parts;
        final PathMatcher matcher;

        Pattern(String glob) {
            this.glob = glob;
            this.parts = Path.of(glob.isEmpty() ? "." : glob).getNameCount();
            this.matcher = FileSystems.getDefault().getPathMatcher("glob:" + glob);
        }

        boolean matches(Path absolute) {
            int count = absolute.getNameCount();
            return count >= parts && matcher.matches(absolute.subpath(count - parts, count));
        }
    }
}
