package dev.apx.spring.boot;

import dev.apx.PythonApp;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the {@link PythonApp} when the context stops ({@code SIGTERM}, {@code context.close()}):
 * in a phase after the web server's graceful shutdown and stop, so no request can reach the app any
 * more. The close refuses new in-process calls, drains those running (30 s, then cancels them), runs
 * the lifespan shutdown and stops the app's event loop. It starts before the web server does; the
 * app itself was loaded when its bean was made.
 */
public final class PythonAppLifecycle implements SmartLifecycle {
    /**
     * After Spring Boot's web server stops ({@link WebServerApplicationContext#START_STOP_LIFECYCLE_PHASE},
     * inlined at compile time, so applications without a web server need no web classes).
     */
    public static final int PHASE = WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE - 1024;

    private final PythonApp app;
    private volatile boolean running;

    /**
     * A lifecycle for {@code app}.
     *
     * @param app the app to close on stop
     */
    public PythonAppLifecycle(PythonApp app) {
        this.app = app;
    }

    @Override
    public void start() {
        running = true;
    }

    /** Drains the app and runs its lifespan shutdown; returns when that is done. */
    @Override
    public void stop() {
        running = false;
        app.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Not pausable: a paused context resumes with {@code start()}, and a closed app does not reopen. */
    @Override
    public boolean isPauseable() {
        return false;
    }
}
