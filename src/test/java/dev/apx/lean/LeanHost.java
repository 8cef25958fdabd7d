package dev.apx.lean;

import dev.apx.Apx;
import dev.apx.AppOptions;
import dev.apx.AppRequest;
import dev.apx.AppResponse;
import dev.apx.ApxServer;
import dev.apx.config.ApxConfig;
import dev.apx.PythonApp;
import dev.apx.PythonRuntime;
import dev.apx.servlet.ApxServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.websocket.jakarta.server.config.JakartaWebSocketServletContainerInitializer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * A host on the lean class path (dev.apx:apx's non-optional dependencies and Jetty, nothing else),
 * run by LeanLibraryIT: an in-process call, the servlet (HTTP and a WebSocket), apx's server with TLS
 * on a PKCS#8 key, and the refusals for what needs an optional dependency. One line per check.
 *
 * <p>Arguments: python, examples dir, test apps dir, CA cert, server cert chain, PKCS#8 key, PKCS#1 key.
 */
public final class LeanHost {
    private LeanHost() {
    }

    public static void main(String[] args) throws Exception {
        Path python = Path.of(args[0]);
        Path examples = Path.of(args[1]);
        Path testApps = Path.of(args[2]);
        PythonRuntime runtime = Apx.python(python);
        try (PythonApp fastapi = runtime.app("fastapi_app:app", examples);
             PythonApp ws = runtime.app(AppOptions.of("apxjava.apps:ws_mounted", testApps));
             HttpClient client = HttpClient.newHttpClient()) {
            AppResponse called = fastapi.call(AppRequest.get("/items/5?q=a")).get(30, TimeUnit.SECONDS);
            System.out.println("call: " + called.status() + " " + called.bodyText());

            Server jetty = new Server();
            ServerConnector connector = new ServerConnector(jetty);
            connector.setHost("127.0.0.1");
            jetty.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler("/");
            JakartaWebSocketServletContainerInitializer.configure(context, null);
            for (Object[] mount : new Object[][]{{fastapi, "/py/*"}, {ws, "/ws/*"}}) {
                ServletHolder holder = new ServletHolder(new ApxServlet((PythonApp) mount[0]));
                holder.setAsyncSupported(true);
                context.addServlet(holder, (String) mount[1]);
            }
            jetty.setHandler(context);
            jetty.start();
            try {
                String base = "127.0.0.1:" + connector.getLocalPort();
                HttpResponse<String> served = client.send(HttpRequest.newBuilder(URI.create("http://" + base + "/py/items/5?q=a")).build(),
                        HttpResponse.BodyHandlers.ofString());
                System.out.println("servlet: " + served.statusCode() + " " + served.body());
                CompletableFuture<String> echoed = new CompletableFuture<>();
                WebSocket socket = client.newWebSocketBuilder().buildAsync(URI.create("ws://" + base + "/ws/echo?lean"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        echoed.complete(data.toString());
                        webSocket.request(1); // read on, to the server's answer to our close
                        return null;
                    }
                }).get(30, TimeUnit.SECONDS);
                socket.sendText("hi", true);
                System.out.println("websocket: " + echoed.get(30, TimeUnit.SECONDS));
                socket.sendClose(1000, "").get(30, TimeUnit.SECONDS);
            } finally {
                jetty.stop();
            }
        }

        ApxServer tls = Apx.server(fastapi(python, examples)
                .tls(t -> t.certFile(Path.of(args[4])).keyFile(Path.of(args[5]))).build()).start();
        try (HttpClient https = HttpClient.newBuilder().sslContext(trusting(Path.of(args[3]))).connectTimeout(Duration.ofSeconds(30)).build()) {
            HttpResponse<String> served = https.send(HttpRequest.newBuilder(URI.create("https://localhost:" + tls.port() + "/items/5?q=a")).build(),
                    HttpResponse.BodyHandlers.ofString());
            System.out.println("tls: " + served.statusCode() + " " + served.version() + " " + served.body());
        } finally {
            tls.stop(Duration.ofSeconds(10));
        }
        refused("pkcs1", () -> fastapi(python, examples).tls(t -> t.certFile(Path.of(args[4])).keyFile(Path.of(args[6]))).build());
        refused("openssl", () -> fastapi(python, examples)
                .tls(t -> t.certFile(Path.of(args[4])).keyFile(Path.of(args[5])).engine("openssl")).build());
        refused("metrics", () -> fastapi(python, examples).metrics(m -> m.enabled(true)).build());
    }

    /** fastapi_app:app from {@code examples} on a free port, no warm-up. */
    private static ApxConfig.Builder fastapi(Path python, Path examples) {
        return ApxConfig.builder()
                .app(app -> app.spec("fastapi_app:app").appDir(examples))
                .runtime(runtime -> runtime.python(python))
                .bind(bind -> bind.port(0))
                .warmup(warmup -> warmup.requests(0));
    }

    /** Prints how a server with that configuration was refused (a bad setting, or at start). */
    private static void refused(String what, java.util.function.Supplier<ApxConfig> config) {
        try {
            Apx.server(config.get()).start().stop(Duration.ofSeconds(1));
            System.out.println(what + ": started");
        } catch (RuntimeException e) {
            System.out.println(what + ": " + e.getClass().getSimpleName() + ": " + e.getMessage().replace('\n', ' '));
        }
    }

    private static SSLContext trusting(Path ca) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
