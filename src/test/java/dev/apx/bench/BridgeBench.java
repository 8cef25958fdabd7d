package dev.apx.bench;

import dev.apx.bridge.Bridge;
import dev.apx.bridge.BridgeConfig;
import dev.apx.bridge.StartMode;
import dev.apx.config.LoopKind;
import dev.apx.python.Interpreter;
import dev.apx.python.PyRef;
import dev.apx.python.TestPython;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small load driver for the bridge (not JMH: it measures throughput and latency of whole
 * requests). Run with {@code bench/bridge [3.11|3.12|3.13] [asyncio|uvloop] [CALLER|LOOP]}.
 *
 * <ol>
 *   <li>requests/s of the trivial ASGI app driven through the bridge from one thread, against
 *       the same app stepped by a plain Python loop in-process (the floor);</li>
 *   <li>p50/p99 latency of a handler awaiting asyncio.sleep(0.001) with 64 in flight.</li>
 * </ol>
 */
public final class BridgeBench {
    private static final int TRIVIAL_REQUESTS = 200_000;
    private static final int SLEEP_REQUESTS = 20_000;
    private static final int IN_FLIGHT = 64;

    public static void main(String[] args) throws Exception {
        LoopKind loop = args.length > 0 ? LoopKind.valueOf(args[0].toUpperCase()) : LoopKind.ASYNCIO;
        StartMode mode = args.length > 1 ? StartMode.valueOf(args[1].toUpperCase()) : StartMode.AUTO;
        Interpreter python = TestPython.interpreter();
        try (Bridge bridge = Bridge.start(python, BridgeConfig.defaults().withLoop(loop).withStartMode(mode))) {
            System.out.printf("Python %s, loop %s, start mode %s%n", python.install().version(), bridge.loopKind(), bridge.startMode());
            PyRef[] handles = python.call(gil -> {
                try (PyRef floor = gil.importModule("apxbench.bridge_floor")) {
                    PyRef done = bridge.newFuture(gil);
                    done.callMethod(gil, "set_result", (Object) null).close();
                    PyRef send = gil.function("send", (g, a) -> done);
                    return new PyRef[] {floor.getAttr(gil, "app"), floor.getAttr(gil, "sleepy"), send, done};
                }
            });
            for (int round = 1; round <= 3; round++) {
                double plain = floor("drive_plain");
                double tasks = floor("drive_tasks");
                double bridged = trivialThroughput(bridge, handles[0], handles[2]);
                System.out.printf("round %d: trivial app, one thread: bridge %,.0f req/s; in-process Python: bare coro.send() loop %,.0f req/s"
                        + " (ratio %.2f), one asyncio Task per request %,.0f req/s (ratio %.2f)%n",
                        round, bridged, plain, bridged / plain, tasks, bridged / tasks);
            }
            if (Boolean.getBoolean("apx.bench.mixed")) {
                for (int round = 1; round <= 2; round++) {
                    System.out.printf("round %d: mixed handler (tasks, sleeps, anyio, gather), 100 in flight: %,.0f req/s%n",
                            round, mixedThroughput(bridge, handles[2]));
                }
            }
            for (int round = 1; round <= 2; round++) {
                long[] latencies = sleepLatencies(bridge, handles[1], handles[2]);
                Arrays.sort(latencies);
                System.out.printf("round %d: sleep(0.001) handler, %d in flight: p50 %d us, p99 %d us, %s%n", round, IN_FLIGHT,
                        latencies[latencies.length / 2] / 1000, latencies[latencies.length * 99 / 100] / 1000, bridge.stats());
            }
        }
        System.exit(0);
    }

    private static double floor(String function) {
        return TestPython.interpreter().call(gil -> {
            try (PyRef module = gil.importModule("apxbench.bridge_floor")) {
                return (Double) module.callMethod(gil, function, TRIVIAL_REQUESTS).toJava(gil);
            }
        });
    }

    private static Map<String, Object> scope(int i) {
        return Map.of("type", "http", "asgi", Map.of("version", "3.0"), "http_version", "1.1", "method", "GET",
                "path", "/", "raw_path", new byte[] {'/'}, "query_string", new byte[0], "headers", List.of(),
                "client", new Object[] {"127.0.0.1", i}, "server", new Object[] {"127.0.0.1", 8000});
    }

    private static double trivialThroughput(Bridge bridge, PyRef app, PyRef send) throws InterruptedException {
        Map<String, Object> scope = scope(1);
        CountDownLatch done = new CountDownLatch(TRIVIAL_REQUESTS);
        long start = System.nanoTime();
        for (int i = 0; i < TRIVIAL_REQUESTS; i++) {
            bridge.start((gil, request) -> app.call(gil, scope, send, send), (gil, request, result, error) -> done.countDown());
        }
        done.await(120, TimeUnit.SECONDS);
        return TRIVIAL_REQUESTS / ((System.nanoTime() - start) / 1e9);
    }

    private static double mixedThroughput(Bridge bridge, PyRef send) throws InterruptedException {
        int total = 20_000;
        Semaphore slots = new Semaphore(100);
        CountDownLatch done = new CountDownLatch(total);
        PyRef mixed = bridge.interpreter().call(gil -> gil.importModule("apxtest.bridge_apps").getAttr(gil, "mixed"));
        Map<String, Object> scope = scope(3);
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            slots.acquire();
            bridge.start((gil, request) -> mixed.call(gil, scope, send, send), (gil, request, result, error) -> {
                slots.release();
                done.countDown();
            });
        }
        done.await(120, TimeUnit.SECONDS);
        return total / ((System.nanoTime() - start) / 1e9);
    }

    private static long[] sleepLatencies(Bridge bridge, PyRef app, PyRef send) throws InterruptedException {
        Semaphore slots = new Semaphore(IN_FLIGHT);
        long[] latencies = new long[SLEEP_REQUESTS];
        AtomicInteger index = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(SLEEP_REQUESTS);
        Map<String, Object> scope = scope(2);
        for (int i = 0; i < SLEEP_REQUESTS; i++) {
            slots.acquire();
            long begun = System.nanoTime();
            bridge.start((gil, request) -> app.call(gil, scope, send, send), (gil, request, result, error) -> {
                latencies[index.getAndIncrement()] = System.nanoTime() - begun;
                slots.release();
                done.countDown();
            });
        }
        done.await(120, TimeUnit.SECONDS);
        return latencies;
    }
}
