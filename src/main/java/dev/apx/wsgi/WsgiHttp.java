package dev.apx.wsgi;

import dev.apx.app.AppConfig;

import dev.apx.log.Log;
import dev.apx.python.Args;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.PythonException;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.RequestHead;
import dev.apx.server.api.Response;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * WSGI (PEP 3333) as an {@link HttpApp}: each request becomes a {@link WsgiCycle} and one call of
 * {@code _apx._wsgi}'s {@code run} on a {@link BlockingThreads} thread, which calls the app, sends
 * what it returns and closes it. The server's limits, timeouts, access log and graceful shutdown
 * apply as they do to ASGI requests, since they live below this interface.
 *
 * <p>The Java functions behind {@code run} are made once; each request's calls carry a handle,
 * the key of its cycle in {@link #cycles} while its thread runs.
 */
public final class WsgiHttp implements HttpApp, AutoCloseable {
    private final Interpreter interpreter;
    private final WsgiConfig config;
    private final PyRef run;
    private final BlockingThreads threads;
    private final Map<Long, WsgiCycle> cycles = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();

    public WsgiHttp(Interpreter interpreter, PyRef app, WsgiConfig config) {
        this.interpreter = interpreter;
        this.config = config;
        this.run = interpreter.call(gil -> {
            try (PyRef module = gil.importModule("_apx._wsgi");
                 PyRef send = gil.function("send", (g, args) ->
                         cycle(args).send(g, args.get(1), args.get(2), (byte[]) args.get(3), (Boolean) args.get(4)));
                 PyRef read = gil.function("read", (g, args) ->
                         cycle(args).read(g, (int) Math.min(Integer.MAX_VALUE, (Long) args.get(1))));
                 PyRef sendFile = gil.function("sendfile", (g, args) ->
                         cycle(args).sendFile(args.get(1), args.get(2), (Long) args.get(3), (Long) args.get(4), (Long) args.get(5)));
                 PyRef log = gil.function("log", (g, args) -> {
                     Log.error(String.valueOf(args.get(0)));
                     return null;
                 })) {
                return module.callMethod(gil, "runner", app, send, read, sendFile, log, config.multiprocess());
            }
        });
        this.threads = new BlockingThreads(interpreter, config.threads(), config.slowMillis());
    }

    private WsgiCycle cycle(Args args) {
        WsgiCycle cycle = cycles.get((Long) args.get(0));
        if (cycle == null) {
            throw new IllegalStateException("apx: a WSGI call after its request ended");
        }
        return cycle;
    }

    @Override
    public Exchange open(RequestHead head, Response response) {
        return open(head, response, config.app());
    }

    /** As {@link #open(RequestHead, Response)} with other settings for this request (a servlet's SCRIPT_NAME). */
    public Exchange open(RequestHead head, Response response, AppConfig http) {
        long handle = handles.incrementAndGet();
        WsgiCycle cycle = new WsgiCycle(response, head.method() + " " + head.uri(), head.bodyless());
        Environ environ = Environ.of(head, http);
        if (environ.remoteAddr() != null && head.client() != null
                && !(environ.remoteAddr().equals(head.client().getAddress().getHostAddress())
                && environ.remotePort().equals(String.valueOf(head.client().getPort())))) {
            response.logClientAs(environ.remoteAddr() + ":" + environ.remotePort());
        }
        Object[] arguments = environ.runArguments(handle, !head.bodyless());
        cycles.put(handle, cycle);
        boolean submitted = threads.submit(cycle, gil -> {
            PythonException error = null;
            try {
                run.call(gil, arguments).close();
            } catch (PythonException e) {
                error = e;
            } catch (RuntimeException e) {
                Log.error("apx: WSGI request " + cycle.label + " failed", e);
            } finally {
                cycles.remove(handle);
                cycle.completed(error);
            }
        });
        if (!submitted) {
            cycles.remove(handle);
            response.fail();
        }
        return cycle;
    }

    /** After the server has drained: waits up to {@code millis} for the blocking threads, then drops the runner. */
    public void close(long millis) {
        threads.close(millis);
        interpreter.run(gil -> run.close());
    }

    @Override
    public void close() {
        close(5000);
    }
}
