import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * WebSocket echo load for bench/run (wrk does not speak WebSocket), on Netty so that one core of
 * client outruns one core of server (the Python client it replaced did not: both servers sat at
 * 64 % of their core).
 *
 * <pre>
 * WsLoad ws://HOST:PORT/PATH [--connections 100] [--duration 5] [--size 64] [--warmup 1] [--cpu-pid PID]
 * WsLoad ws://HOST:PORT/PATH --check
 * </pre>
 *
 * Like wrk's closed loop: each connection sends a text message of {@code --size} bytes, waits for
 * its echo (checked byte for byte), sends the next. All connections open and load for
 * {@code --warmup} seconds (this JVM's JIT and the server's) before the measured window of
 * {@code --duration} seconds. Prints one JSON object: messages/s, latency percentiles (ms),
 * errors, and with {@code --cpu-pid} that process's CPU share and context switches over the window (from /proc).
 * No permessage-deflate: the echo path is measured, not zlib. One event-loop thread.
 */
public final class WsLoad {
    private final URI uri;
    private final byte[] payload;
    private final ByteBuf expected; // the payload again, for comparing echoes
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    // all below: the event-loop thread only, until the group is shut down
    private long windowStart = Long.MAX_VALUE;
    private long windowEnd = Long.MAX_VALUE;
    private long[] latencies = new long[1 << 16];
    private int count;
    private int mismatches;
    private int socketErrors;
    private String firstError;

    private WsLoad(URI uri, int size) {
        this.uri = uri;
        this.payload = "x".repeat(size).getBytes(StandardCharsets.US_ASCII);
        this.expected = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(payload));
    }

    public static void main(String[] args) throws Exception {
        if (!Epoll.isAvailable()) {
            throw new IllegalStateException("wsload needs Netty's epoll transport", Epoll.unavailabilityCause());
        }
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        boolean check = rest.remove("--check");
        int connections = Integer.parseInt(option(rest, "--connections", "100"));
        double duration = Double.parseDouble(option(rest, "--duration", "5"));
        double warmup = Double.parseDouble(option(rest, "--warmup", "1"));
        int size = Integer.parseInt(option(rest, "--size", "64"));
        String cpuPid = option(rest, "--cpu-pid", null);
        double clockTicks = Double.parseDouble(option(rest, "--clock-ticks", "100")); // USER_HZ: 100 on Linux
        if (rest.size() != 1 || connections < 1 || duration <= 0 || warmup < 0 || size < 0) {
            System.err.println("usage: WsLoad ws://HOST:PORT/PATH [--connections N] [--duration S] [--warmup S] [--size BYTES] "
                    + "[--cpu-pid PID [--clock-ticks HZ]] | --check");
            System.exit(2);
        }
        WsLoad load = new WsLoad(new URI(rest.get(0)), check ? 4 : size);
        try {
            if (check) {
                System.exit(load.check() ? 0 : 1);
            }
            System.out.println(load.run(connections, warmup, duration, cpuPid, clockTicks));
        } finally {
            load.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    private static String option(List<String> args, String name, String otherwise) {
        int at = args.indexOf(name);
        if (at < 0) {
            return otherwise;
        }
        if (at + 1 >= args.size()) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        String value = args.get(at + 1);
        args.subList(at, at + 2).clear();
        return value;
    }

    /** One echo of a short message; true when the same text came back within 10 s. */
    private boolean check() throws InterruptedException {
        CountDownLatch echoed = new CountDownLatch(1);
        Connection connection = new Connection(null, echoed);
        ChannelFuture connected = connect(connection);
        boolean done = echoed.await(10, TimeUnit.SECONDS);
        connected.channel().close();
        if (!done || count != 1 || mismatches != 0) {
            System.err.println("no WebSocket echo: " + (firstError != null ? firstError
                    : mismatches != 0 ? "the echo differed" : "none within 10 s"));
            return false;
        }
        return true;
    }

    private String run(int connections, double warmup, double duration, String cpuPid, double clockTicks) throws Exception {
        CountDownLatch open = new CountDownLatch(connections);
        CountDownLatch finished = new CountDownLatch(connections);
        List<Channel> channels = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            channels.add(connect(new Connection(open, finished)).channel());
        }
        if (!open.await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException(open.getCount() + " of " + connections + " connections did not open within 20 s");
        }
        Thread.sleep((long) (warmup * 1000));
        long cpuBefore = cpuTicks(cpuPid);
        long switchesBefore = contextSwitches(cpuPid);
        long start = System.nanoTime();
        long end = start + (long) (duration * 1e9);
        group.submit(() -> {
            windowStart = start;
            windowEnd = end;
        }).sync();
        Thread.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000));
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        long cpuAfter = cpuTicks(cpuPid);
        long switches = contextSwitches(cpuPid) - switchesBefore;
        double elapsed = (System.nanoTime() - start) / 1e9;
        finished.await(10, TimeUnit.SECONDS); // each connection stops at its next echo after the window
        for (Channel channel : channels) {
            channel.close();
        }
        return group.submit(() -> report(elapsed, cpuPid == null ? null : (cpuAfter - cpuBefore) / (clockTicks * elapsed),
                switches)).get();
    }

    private ChannelFuture connect(Connection connection) {
        int port = uri.getPort() > 0 ? uri.getPort() : 80;
        return new Bootstrap()
                .group(group)
                .channel(EpollSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(
                                new HttpClientCodec(),
                                new HttpObjectAggregator(65536),
                                new WebSocketClientProtocolHandler(WebSocketClientHandshakerFactory.newHandshaker(
                                        uri, WebSocketVersion.V13, null, false, EmptyHttpHeaders.INSTANCE, Integer.MAX_VALUE)),
                                new WebSocketFrameAggregator(Integer.MAX_VALUE),
                                connection);
                    }
                })
                .connect(uri.getHost(), port)
                .addListener((ChannelFuture f) -> {
                    if (!f.isSuccess()) {
                        connection.failed(f.cause().toString());
                    }
                });
    }

    private void error(String what) {
        socketErrors++;
        if (firstError == null) {
            firstError = what;
        }
    }

    /** One connection's closed loop (event-loop thread). */
    private final class Connection extends SimpleChannelInboundHandler<WebSocketFrame> {
        private final CountDownLatch open;
        private final CountDownLatch finished;
        private long sentAt;
        private boolean opened;
        private boolean done;

        Connection(CountDownLatch open, CountDownLatch finished) {
            this.open = open;
            this.finished = finished;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                countOpen();
                send(ctx);
            }
            ctx.fireUserEventTriggered(event);
        }

        private void send(ChannelHandlerContext ctx) {
            sentAt = System.nanoTime();
            ctx.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(payload)), ctx.voidPromise());
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            long now = System.nanoTime();
            if (!(frame instanceof TextWebSocketFrame) || !ByteBufUtil.equals(frame.content(), expected)) {
                mismatches++;
            }
            if (open == null) { // --check
                count++;
                done();
                return;
            }
            if (sentAt >= windowStart && now <= windowEnd) {
                record(now - sentAt);
            }
            if (now < windowEnd) {
                send(ctx);
            } else {
                done();
                ctx.writeAndFlush(new CloseWebSocketFrame(1000, ""));
            }
        }

        private void countOpen() {
            if (!opened) {
                opened = true;
                if (open != null) {
                    open.countDown();
                }
            }
        }

        /** A connection that failed or ended early: an error, and nobody waits for it. */
        void failed(String what) {
            if (!done) {
                error(what);
                countOpen();
                done();
            }
        }

        void done() {
            if (!done) {
                done = true;
                finished.countDown();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            failed("connection closed by the server before the end");
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failed(cause.toString());
            ctx.close();
        }
    }

    private void record(long nanos) {
        if (count == latencies.length) {
            latencies = Arrays.copyOf(latencies, count * 2);
        }
        latencies[count++] = nanos;
    }

    private String report(double elapsed, Double cpuShare, long switches) {
        long[] sorted = Arrays.copyOf(latencies, count);
        Arrays.sort(sorted);
        StringBuilder json = new StringBuilder("{");
        field(json, "rps", count / elapsed);
        json.append(", \"requests\": ").append(count);
        field(json, "duration_s", elapsed);
        for (int p : new int[] {50, 75, 90, 99}) {
            field(json, "p" + p + "_ms", count == 0 ? 0 : sorted[Math.min(count - 1, (int) ((long) count * p / 100))] / 1e6);
        }
        json.append(", \"socket_errors\": ").append(socketErrors)
                .append(", \"non_2xx\": ").append(mismatches)
                .append(", \"errors\": ").append(socketErrors + mismatches)
                .append(", \"first_error\": ").append(firstError == null ? "null" : quote(firstError));
        if (cpuShare != null) {
            field(json, "server_cpu_pct", 100 * cpuShare);
            json.append(", \"server_ctx_switches\": ").append(switches);
        }
        return json.append("}").toString();
    }

    private static void field(StringBuilder json, String name, double value) {
        if (json.length() > 1) {
            json.append(", ");
        }
        json.append('"').append(name).append("\": ").append(String.format(Locale.ROOT, "%.3f", value));
    }

    private static String quote(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\x00-\\x1f]", " ") + '"';
    }

    /** Voluntary + involuntary context switches of a process's threads (/proc/PID/task/TID/status). */
    private static long contextSwitches(String pid) throws java.io.IOException {
        if (pid == null) {
            return 0;
        }
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc", pid, "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            total += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (java.nio.file.NoSuchFileException ended) {
                    // a thread that ended between the listing and the read
                }
            }
        }
        return total;
    }

    /** utime + stime of a process, in clock ticks (/proc/PID/stat fields 14 and 15). */
    private static long cpuTicks(String pid) throws java.io.IOException {
        if (pid == null) {
            return 0;
        }
        String stat = Files.readString(Path.of("/proc", pid, "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
