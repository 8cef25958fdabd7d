package dev.apx.examples;

import dev.apx.PythonApp;
import dev.apx.servlet.ApxServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** Embedded Jetty 12 (ee10) with its Jakarta WebSocket server: the Python app at /py/*, a Java servlet at /java/*. */
final class JettyHost {
    private JettyHost() {
    }

    static JavaHost.Container start(int port, PythonApp app) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        JakartaWebSocketServletContainerInitializer.configure(context, null); // WebSockets reach the app through ApxServlet
        ServletHolder python = new ServletHolder("python", new ApxServlet(app));
        python.setAsyncSupported(true); // ApxServlet answers asynchronously
        context.addServlet(python, "/py/*");
        context.addServlet(new ServletHolder("java", new JavaHost.Hello()), "/java/*");
        server.setHandler(context);
        server.setStopTimeout(5000); // graceful: requests in flight finish first
        server.start();
        return new JavaHost.Container() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public void stop() throws Exception {
                server.stop();
            }
        };
    }
}
