package dev.apx.server;

import dev.apx.server.api.AppInstance;
import dev.apx.server.api.Exchange;
import dev.apx.server.api.HttpApp;
import dev.apx.server.api.HttpObserver;
import dev.apx.server.shared.ServerConfig;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server over several app instances (what {@code --interpreters N} gives it, one per runtime):
 * connections spread over them and stay on theirs; a replaced instance stops getting connections and
 * its connections finish as at a graceful shutdown. The apps are Java, so the server alone is under test.
 */
class AppInstancesTest {

    /** Answers every request with its own name; {@code hold} (when set) holds the response of /slow until it opens. */
    private static HttpApp named(String name, CountDownLatch hold) {
        return (head, response) -> new Exchange() {
            @Override
            public void body(byte[] chunk, boolean last) {
                if (!last) {
                    return;
                }
                Runnable answer = () -> {
                    byte[] body = name.getBytes(StandardCharsets.US_ASCII);
                    response.start(200, List.<String[]>of(new String[]{"content-length", String.valueOf(body.length)}), false);
                    response.body(body, false);
                };
                if (hold != null && head.uri().equals("/slow")) {
                    Thread.ofPlatform().start(() -> {
                        try {
                            hold.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException ignored) {
                            Thread.currentThread().interrupt();
                        }
                        answer.run();
                    });
                } else {
                    answer.run();
                }
            }

            @Override
            public void disconnected() {
            }

            @Override
            public void writable() {
            }
        };
    }

    private static Server serve(List<AppInstance> apps) {
        return Server.start(ServerConfig.defaults().withPort(0).withAccessLog(false), apps, null, null, null, HttpObserver.NONE);
    }

    /** A keep-alive connection: each call sends one request and reads its response's body. */
    private static final class Connection implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final BufferedReader in;

        Connection(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
            out = socket.getOutputStream();
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1));
        }

        /** A connection opened once {@code previous} answered {@code expected} (so that one was assigned first). */
        static Connection after(Connection previous, String expected, int port) throws IOException {
            assertThat(previous.get("/")).isEqualTo(expected);
            return new Connection(port);
        }

        String get(String path) throws IOException {
            out.write(("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return response();
        }

        String response() throws IOException {
            String status = in.readLine();
            assertThat(status).startsWith("HTTP/1.1 200");
            int length = 0;
            for (String line = in.readLine(); !line.isEmpty(); line = in.readLine()) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).strip());
                }
            }
            char[] body = new char[length];
            for (int read = 0; read < length; ) {
                read += in.read(body, read, length - read);
            }
            return new String(body);
        }

        /** True when the server closed the connection (EOF) within the socket timeout. */
        boolean closedByServer() throws IOException {
            return in.read() == -1;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void connectionsSpreadEvenlyAndEachKeepsItsInstance() throws Exception {
        try (Server server = serve(List.of(new AppInstance(named("a", null), null), new AppInstance(named("b", null), null)))) {
            List<Connection> connections = new ArrayList<>();
            List<String> firstAnswers = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    Connection c = new Connection(server.port());
                    connections.add(c);
                    firstAnswers.add(c.get("/"));
                }
                for (int round = 0; round < 3; round++) {
                    for (int i = 0; i < connections.size(); i++) {
                        assertThat(connections.get(i).get("/again")).as("connection %d, round %d", i, round).isEqualTo(firstAnswers.get(i));
                    }
                }
                assertThat(firstAnswers).filteredOn("a"::equals).hasSize(3);
                assertThat(firstAnswers).filteredOn("b"::equals).hasSize(3);
                assertThat(server.openConnectionsByApp()).containsExactly(3, 3);
            } finally {
                for (Connection c : connections) {
                    c.close();
                }
            }
        }
    }

    @Test
    void aReplacedInstanceFinishesItsConnectionsAndGetsNoNewOnes() throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        AppInstance a = new AppInstance(named("a", hold), null);
        AppInstance b = new AppInstance(named("b", null), null);
        AppInstance c = new AppInstance(named("c", null), null);
        // each connection opens after the one before it is served, so the spreading is in this order
        try (Server server = serve(List.of(a, b));
             Connection idleOnA = new Connection(server.port());
             Connection onB = Connection.after(idleOnA, "a", server.port());
             Connection busyOnA = Connection.after(onB, "b", server.port())) {
            assertThat(busyOnA.get("/")).isEqualTo("a");
            busyOnA.out.write("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            busyOnA.out.flush();
            Thread.sleep(200); // the slow request reaches the app before the switch

            var drained = server.replace(a, c);
            assertThat(server.apps()).containsExactly(c, b);
            assertThat(idleOnA.closedByServer()).as("an idle connection of the replaced instance closes at once").isTrue();
            assertThat(drained).as("a response of the old instance is still in flight").isNotDone();

            Set<String> newcomers = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                try (Connection fresh = new Connection(server.port())) {
                    newcomers.add(fresh.get("/"));
                }
            }
            assertThat(newcomers).doesNotContain("a").contains("c");
            assertThat(onB.get("/")).as("the other instance's connections go on").isEqualTo("b");

            hold.countDown();
            assertThat(busyOnA.response()).as("the busy request of the old instance completes").isEqualTo("a");
            assertThat(busyOnA.closedByServer()).as("and its connection closes after it").isTrue();
            drained.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void replacingAnInstanceWithNoConnectionsIsDrainedAtOnce() {
        AppInstance a = new AppInstance(named("a", null), null);
        try (Server server = serve(List.of(a))) {
            assertThat(server.replace(a, new AppInstance(named("b", null), null))).isDone();
            assertThat(RawHttp.exchange(server.port(), "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")).endsWith("\r\n\r\nb");
        }
    }

    @Test
    void anInstanceAddedWhileServingGetsNewConnectionsAndTheOldOnesStay() throws Exception {
        AppInstance a = new AppInstance(named("a", null), null);
        try (Server server = serve(List.of(a));
             Connection first = new Connection(server.port());
             Connection second = Connection.after(first, "a", server.port())) {
            assertThat(second.get("/")).as("one instance: every connection on it").isEqualTo("a");
            AppInstance b = new AppInstance(named("b", null), null);
            server.add(b);
            assertThat(server.apps()).containsExactly(a, b);
            try (Connection third = new Connection(server.port())) {
                assertThat(third.get("/")).as("the newcomer has the fewest connections").isEqualTo("b");
                assertThat(first.get("/")).isEqualTo("a");
                assertThat(second.get("/")).isEqualTo("a");
                assertThat(server.openConnectionsByApp()).containsExactly(2, 1);
            }
        }
    }
}
