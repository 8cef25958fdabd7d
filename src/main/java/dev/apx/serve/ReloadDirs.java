package dev.apx.serve;

import dev.apx.log.Log;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The directories {@code --reload} watches. */
public final class ReloadDirs {
    private ReloadDirs() {
    }

    /**
     * Uvicorn's: the given directories that exist, else the working directory (with a warning when
     * some were given).
     *
     * @param given the configured directories
     * @return the directories to watch
     */
    public static List<Path> watched(List<Path> given) {
        List<Path> dirs = given.stream().filter(Files::isDirectory).toList();
        if (dirs.isEmpty()) {
            if (!given.isEmpty()) {
                Log.warning("Provided reload directories " + given + " did not contain valid directories, watching current working directory.");
            }
            return List.of(Path.of("").toAbsolutePath());
        }
        return dirs;
    }
}
