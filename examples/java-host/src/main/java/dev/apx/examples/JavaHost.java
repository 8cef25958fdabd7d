package dev.apx.examples;

import dev.apx.Apx;
import dev.apx.PythonApp;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A Java service with its own endpoint ({@code /java/hello}) and a FastAPI app at {@code /py/*}:
 * {@code java -cp ... dev.apx.examples.JavaHost jetty|tomcat PORT PYTHON APP_DIR}. It serves until
 * its standard input ends (or says "stop"), then stops the container first and the app after it,
 * so the app's lifespan shutdown runs once no request can reach it any more.
 */
public final class JavaHost {
    /** What both containers do for this example. */
    interface Container {
        int port();

        void stop() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: JavaHost jetty|tomcat PORT PYTHON APP_DIR [APP]");
            System.exit(2);
        }
        PythonApp app = Apx.python(Path.of(args[2])).app(args.length > 4 ? args[4] : "hosted:app", Path.of(args[3]));
        int port = Integer.parseInt(args[1]);
        Container container = switch (args[0]) {
            case "jetty" -> JettyHost.start(port, app);
            case "tomcat" -> TomcatHost.start(port, app);
            default -> throw new IllegalArgumentException("jetty or tomcat, not " + args[0]);
        };
        System.out.println("java-host: " + args[0] + " listening on " + container.port());
        System.out.flush();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = stdin.readLine()) != null && !line.strip().equals("stop"); ) {
            // serve until told
        }
        container.stop();
        log("container stopped");
        app.close(); // lifespan shutdown
        log("app closed");
        System.out.println("java-host: stopped");
    }

    static void log(String event) throws IOException {
        String path = System.getenv("JAVA_HOST_LOG");
        if (path != null) {
            Files.writeString(Path.of(path), event + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    /** The Java side of the service. */
    static final class Hello extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain;charset=utf-8");
            response.getWriter().print("hello from java");
        }
    }

}
