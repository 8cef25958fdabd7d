package dev.apx.wsgi;

import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;
import dev.apx.server.Server;
import dev.apx.server.shared.ServerConfig;

import java.time.Duration;
import java.util.List;

/**
 * A real apx serving a WSGI app in this JVM: the WSGI layer and the Netty server on an ephemeral
 * port of 127.0.0.1, the app {@code module:attribute} from the test resources or from
 * {@code extraPath} (put on sys.path while the server lives).
 */
final class WsgiTestServer implements AutoCloseable {
    final Interpreter python = TestPython.interpreter();
    final Server server;
    private final WsgiHttp http;
    private final PyRef app;
    private final List<String> extraPath;

    WsgiTestServer(String module, String attribute, WsgiConfig config, ServerConfig serverConfig, List<String> extraPath) {
        this.extraPath = extraPath;
        app = python.call(gil -> {
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                for (String entry : extraPath) {
                    path.callMethod(gil, "insert", 0, entry).close();
                }
            }
            try (PyRef mod = gil.importModule(module)) {
                return mod.getAttr(gil, attribute);
            }
        });
        http = new WsgiHttp(python, app, config);
        server = Server.start(serverConfig.withPort(0), http, null);
    }

    WsgiTestServer(String module, String attribute) {
        this(module, attribute, WsgiConfig.defaults(), ServerConfig.defaults().withAccessLog(false), List.of());
    }

    int port() {
        return server.port();
    }

    @Override
    public void close() throws InterruptedException {
        server.stopAccepting();
        server.drain(Duration.ofSeconds(5));
        server.close();
        http.close(5000);
        python.run(gil -> {
            app.close();
            try (PyRef sys = gil.importModule("sys"); PyRef path = sys.getAttr(gil, "path")) {
                for (String entry : extraPath) {
                    path.callMethod(gil, "remove", entry).close();
                }
            }
            try (PyRef gc = gil.importModule("gc")) {
                gc.callMethod(gil, "collect").close();
            }
        });
    }
}
