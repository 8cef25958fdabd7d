package dev.apx.host;

/**
 * APP names a module or attribute that is not there: a typo, or the wrong {@code --app-dir}. Unlike
 * an app whose own import raises, the traceback would only show importlib's frames, so the message
 * alone is the whole story (the command line prints it as one line and exits 3, as Uvicorn does).
 */
public final class AppNotFound extends RuntimeException {
    public AppNotFound(String message) {
        super(message);
    }
}
