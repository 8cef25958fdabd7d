package dev.apx;

import dev.apx.cli.EmbeddedServer;
import dev.apx.python.PythonException;
import dev.apx.python.PythonSetupException;

import java.time.Duration;

/**
 * apx's own server (Netty, HTTP/1.1, HTTP/2, TLS, WebSockets) inside this JVM, configured with the
 * command line's flags ({@link Apx#server}). {@link #start} returns once it serves;
 * {@link #stop} drains as SIGTERM does on the command line. One server per process for now
 * (one embedded CPython per process).
 */
public final class ApxServer implements AutoCloseable {
    private final EmbeddedServer server;
    private final Object lock = new Object();
    private boolean started;
    private boolean stopped;

    ApxServer(String[] args) {
        this.server = EmbeddedServer.parse(args);
    }

    /**
     * Loads the app, runs lifespan startup and binds; returns once it serves.
     *
     * @return this server
     * @throws IllegalStateException it was started before
     * @throws ApxException Python or the app could not be set up, lifespan startup failed, or the bind failed (logged)
     */
    public ApxServer start() {
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException("apx: this server was already started");
            }
            started = true;
        }
        int code;
        try {
            code = PlatformThreads.call("apx-server-start", server::start);
        } catch (PythonSetupException | dev.apx.host.AppNotFound e) {
            throw new ApxException(e.getMessage(), e);
        } catch (PythonException e) {
            throw new ApxException("cannot load the app: " + e.getMessage() + "\n" + e.pythonTraceback(), e);
        }
        if (code != 0) {
            synchronized (lock) {
                stopped = true;
            }
            throw new ApxException("apx: the server did not start (" + switch (code) {
                case 3 -> "lifespan startup failed";
                default -> "the app, Python or the socket could not be set up";
            } + "; see the log)");
        }
        return this;
    }

    /**
     * The port it listens on (after {@link #start}; the free port chosen for {@code --port 0}).
     *
     * @return the bound port
     * @throws IllegalStateException the server is not running
     */
    public int port() {
        synchronized (lock) {
            if (!started || stopped) {
                throw new IllegalStateException("apx: the server is not running");
            }
        }
        return server.port();
    }

    /**
     * Stops accepting, waits up to {@code grace} for the requests in flight (then cancels them),
     * closes the connections and runs lifespan shutdown. Once; later calls return at once.
     *
     * @param grace how long the requests in flight may take before they are cancelled
     */
    public void stop(Duration grace) {
        synchronized (lock) {
            if (!started || stopped) {
                return;
            }
            stopped = true;
        }
        PlatformThreads.call("apx-server-stop", () -> {
            server.stop(grace);
            return null;
        });
    }

    /** {@code stop(Duration.ofSeconds(30))}. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}
