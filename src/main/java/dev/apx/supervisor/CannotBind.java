package dev.apx.supervisor;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The supervisor could not bind its socket (the port is taken, the path not writable): the run ends with exit 3, as Uvicorn's. */
public final class CannotBind extends UncheckedIOException {
    CannotBind(String message, IOException cause) {
        super(message, cause);
    }
}
