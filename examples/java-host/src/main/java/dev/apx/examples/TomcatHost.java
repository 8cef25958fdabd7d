package dev.apx.examples;

import dev.apx.PythonApp;
import dev.apx.servlet.ApxServlet;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.websocket.server.WsSci;

import java.nio.file.Files;

/** Embedded Tomcat 11 with its WebSocket support: the Python app at /py/*, a Java servlet at /java/*. */
final class TomcatHost {
    private TomcatHost() {
    }

    static JavaHost.Container start(int port, PythonApp app) throws Exception {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(Files.createTempDirectory("java-host-tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.setPort(port);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", null);
        context.addServletContainerInitializer(new WsSci(), null); // WebSockets reach the app through ApxServlet
        Wrapper python = Tomcat.addServlet(context, "python", new ApxServlet(app));
        python.setAsyncSupported(true); // ApxServlet answers asynchronously
        context.addServletMappingDecoded("/py/*", "python");
        Tomcat.addServlet(context, "java", new JavaHost.Hello());
        context.addServletMappingDecoded("/java/*", "java");
        tomcat.start();
        return new JavaHost.Container() {
            @Override
            public int port() {
                return tomcat.getConnector().getLocalPort();
            }

            @Override
            public void stop() throws Exception {
                tomcat.stop();
                tomcat.destroy();
            }
        };
    }
}
