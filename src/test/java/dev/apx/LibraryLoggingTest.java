package dev.apx;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.apx.python.TestPython;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * apx inside a host's JVM logs through SLF4J: Python's {@code logging} records and apx's own lines
 * reach a real Logback, with their logger names, levels and Python tracebacks, and Logback's levels
 * decide what Python makes.
 */
class LibraryLoggingTest {
    private static final String APP_LOGGER = "apxjava.logging_app";
    private static final ListAppender<ILoggingEvent> records = new ListAppender<>();
    private static LoggerContext logback;
    private static PythonApp app;

    @BeforeAll
    static void load() {
        logback = (LoggerContext) LoggerFactory.getILoggerFactory();
        records.setContext(logback);
        records.start();
        logback.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(records);
        ch.qos.logback.classic.Logger appLogger = logback.getLogger(APP_LOGGER);
        appLogger.addAppender(records);
        appLogger.setAdditive(false); // the thread test's records stay off the console
        appLogger.setLevel(Level.TRACE);
        app = Apx.python(TestPython.python()).app("apxjava.logging_app:app", PythonAppTest.TEST_APPS);
    }

    @AfterAll
    static void close() {
        if (app != null) {
            app.close();
        }
        logback.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(records);
        logback.getLogger(APP_LOGGER).detachAppender(records);
    }

    @Test
    void pythonRecordsReachTheirSlf4jLoggersAtTheirLevels() throws Exception {
        String tag = tag();
        AppResponse response = get("/levels?tag=" + tag);
        assertThat(response.bodyText()).isEqualTo("{\"debug_enabled\":true,\"info_enabled\":true,\"debug_formatted\":1}");
        assertThat(recordsWith(tag)).extracting(ILoggingEvent::getLoggerName, ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
                .containsExactly(
                        tuple(APP_LOGGER, Level.TRACE, "trace " + tag),
                        tuple(APP_LOGGER, Level.DEBUG, "debug " + tag + " spy"),
                        tuple(APP_LOGGER, Level.INFO, "info " + tag),
                        tuple(APP_LOGGER, Level.WARN, "warning " + tag),
                        tuple(APP_LOGGER, Level.ERROR, "error " + tag),
                        tuple(APP_LOGGER, Level.ERROR, "critical " + tag));
    }

    @Test
    void aLevelSetInLogbackFiltersWhatPythonMakes() throws Exception {
        ch.qos.logback.classic.Logger appLogger = logback.getLogger(APP_LOGGER);
        appLogger.setLevel(Level.WARN);
        try {
            Thread.sleep(1300); // _apx._slf4j asks SLF4J for a logger's level again after REFRESH (1 s)
            String tag = tag();
            AppResponse response = get("/levels?tag=" + tag);
            // Python's isEnabledFor follows Logback's level, and the debug record's message is never formatted
            assertThat(response.bodyText()).isEqualTo("{\"debug_enabled\":false,\"info_enabled\":false,\"debug_formatted\":0}");
            assertThat(recordsWith(tag)).extracting(ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
                    .containsExactly(tuple(Level.WARN, "warning " + tag), tuple(Level.ERROR, "error " + tag),
                            tuple(Level.ERROR, "critical " + tag));
        } finally {
            appLogger.setLevel(Level.TRACE);
            Thread.sleep(1300);
        }
    }

    @Test
    void aLoggedExceptionCarriesItsPythonTraceback() throws Exception {
        String tag = tag();
        assertThat(get("/caught?tag=" + tag).status()).isEqualTo(200);
        ILoggingEvent record = awaitRecord(event -> event.getFormattedMessage().startsWith("could not parse " + tag));
        assertThat(record.getLoggerName()).isEqualTo(APP_LOGGER);
        assertThat(record.getLevel()).isEqualTo(Level.ERROR);
        // the traceback as Python prints it (3.13 adds ~~~^^^ markers under the failing call)
        assertThat(record.getFormattedMessage())
                .startsWith("could not parse " + tag + "\nTraceback (most recent call last):\n")
                .contains("  File \"" + appFile() + "\", line 43, in caught\n    parse(tag)\n",
                        "  File \"" + appFile() + "\", line 37, in parse\n    raise ValueError(\"not a number: \" + tag)\n")
                .endsWith("\nValueError: not a number: " + tag);
    }

    @Test
    void anUnhandledErrorIsApxsErrorRecordWithTheTraceback() throws Exception {
        String tag = tag();
        assertThat(get("/fails?tag=" + tag).status()).isEqualTo(500);
        ILoggingEvent record = awaitRecord(event -> event.getFormattedMessage().contains("RuntimeError: unhandled " + tag));
        assertThat(record.getLoggerName()).isEqualTo("dev.apx");
        assertThat(record.getLevel()).isEqualTo(Level.ERROR);
        assertThat(record.getFormattedMessage()).startsWith("Exception in ASGI application\n").contains(
                "Traceback (most recent call last):\n",
                "  File \"" + appFile() + "\", line 51, in fails\n    raise RuntimeError(\"unhandled \" + tag)\n");
    }

    @Test
    void theRootLoggerAndWarningsHaveTheirLoggers() throws Exception {
        String tag = tag();
        get("/root?tag=" + tag);
        assertThat(recordsWith(tag)).extracting(ILoggingEvent::getLoggerName, ILoggingEvent::getLevel)
                .containsExactly(tuple(Logger.ROOT_LOGGER_NAME, Level.INFO), tuple("py.warnings", Level.WARN));
        assertThat(recordsWith(tag).get(1).getFormattedMessage()).contains("UserWarning: deprecated " + tag);
    }

    @Test
    void pythonThreadsAndTheLoopLogAtOnceWithoutLosingARecord() throws Exception {
        String tag = tag();
        CompletableFuture<AppResponse> threads = app.call(AppRequest.get("/threads?count=8&each=250&tag=" + tag));
        List<CompletableFuture<AppResponse>> loop = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            loop.add(app.call(AppRequest.get("/levels?tag=" + tag)));
        }
        assertThat(threads.get(60, TimeUnit.SECONDS).bodyText()).isEqualTo("{\"records\":2000}");
        for (CompletableFuture<AppResponse> call : loop) {
            assertThat(call.get(60, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
        List<ILoggingEvent> tagged = recordsWith(tag);
        assertThat(tagged.stream().filter(event -> event.getFormattedMessage().startsWith("thread "))).hasSize(2000);
        assertThat(tagged.stream().filter(event -> event.getFormattedMessage().startsWith("critical "))).hasSize(50);
        for (int thread = 0; thread < 8; thread++) { // each thread's records in its order
            String prefix = "thread " + tag + " " + thread + " ";
            assertThat(tagged.stream().map(ILoggingEvent::getFormattedMessage).filter(message -> message.startsWith(prefix)))
                    .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 250).mapToObj(n -> prefix + n).toList());
        }
    }

    @Test
    void apxsOwnServerLogsItsAccessLinesOnDevApxAccess() throws Exception {
        String tag = tag();
        ApxServer server = Apx.server(dev.apx.config.ApxConfig.builder()
                .app(app -> app.spec("apxjava.logging_app:app").appDir(PythonAppTest.TEST_APPS))
                .runtime(runtime -> runtime.python(TestPython.python()))
                .bind(bind -> bind.port(0))
                .warmup(warmup -> warmup.requests(0))
                .build()).start();
        try (java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient()) {
            java.net.http.HttpResponse<String> response = client.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + server.port() + "/levels?tag=" + tag)).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
        } finally {
            server.stop(java.time.Duration.ofSeconds(5));
        }
        ILoggingEvent access = awaitRecord(event -> event.getLoggerName().equals("dev.apx.access")
                && event.getFormattedMessage().contains(tag));
        assertThat(access.getLevel()).isEqualTo(Level.INFO);
        assertThat(access.getFormattedMessage()).matches("127\\.0\\.0\\.1:\\d+ - \"GET /levels\\?tag=" + tag + " HTTP/1\\.1\" 200");
        assertThat(recordsWith(tag)).extracting(ILoggingEvent::getLoggerName).contains(APP_LOGGER);
    }

    @Test
    void anAppenderThatEntersPythonFailsFastInsteadOfHanging() throws Exception {
        List<Throwable> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        ch.qos.logback.core.AppenderBase<ILoggingEvent> entersPython = new ch.qos.logback.core.AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                try { // the GIL is released around the appenders: this thread cannot take it back here
                    dev.apx.python.Interpreter.running().run(gil -> gil.importModule("sys").close());
                } catch (IllegalStateException e) {
                    refused.add(e);
                    throw e; // Logback reports an appender's error and goes on
                }
            }
        };
        entersPython.setContext(logback);
        entersPython.start();
        ch.qos.logback.classic.Logger reentrant = logback.getLogger(APP_LOGGER + ".reentrant");
        reentrant.addAppender(entersPython);
        try {
            String tag = tag();
            assertThat(get("/reentrant?tag=" + tag).status()).isEqualTo(200);
            assertThat(refused).singleElement().satisfies(e -> assertThat(e).hasMessageContaining("inside Gil.allowThreads"));
            assertThat(recordsWith(tag)).extracting(ILoggingEvent::getLoggerName).containsExactly(APP_LOGGER + ".reentrant");
        } finally {
            reentrant.detachAppender(entersPython);
        }
    }

    private static String appFile() {
        return PythonAppTest.TEST_APPS.resolve("apxjava/logging_app.py").toAbsolutePath().toString();
    }

    private static String tag() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    private static AppResponse get(String pathAndQuery) throws Exception {
        return app.call(AppRequest.get(pathAndQuery)).get(30, TimeUnit.SECONDS);
    }

    private static List<ILoggingEvent> recordsWith(String tag) {
        synchronized (records) { // Logback appends under the appender's lock
            return records.list.stream().filter(event -> event.getFormattedMessage().contains(tag)).toList();
        }
    }

    /** apx logs an app's unhandled error once the app's call has ended, which may be after its 500 was answered. */
    private static ILoggingEvent awaitRecord(Predicate<ILoggingEvent> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            synchronized (records) {
                for (ILoggingEvent event : records.list) {
                    if (wanted.test(event)) {
                        return event;
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no such record; records: " + snapshot());
    }

    private static List<String> snapshot() {
        synchronized (records) {
            return records.list.stream().map(event -> event.getLoggerName() + " " + event.getLevel() + " " + event.getFormattedMessage()).toList();
        }
    }
}
