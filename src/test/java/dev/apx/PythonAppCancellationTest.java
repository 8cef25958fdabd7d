package dev.apx;

import dev.apx.python.TestPython;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.apx.PythonFunctionTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Giving up on an in-process request reaches the ASGI handler: {@code cancel}, {@code orTimeout},
 * {@code get(timeout)}, the caller's {@code complete} and {@code completeOnTimeout} on
 * {@link PythonApp#call} and {@link PythonApp#stream} each end in the handler's
 * {@code CancelledError}, which it records where a {@link PythonFunction} of the same runtime reads it.
 * (The responses' constructors are not public: a caller's own value is null, or another call's response.)
 */
class PythonAppCancellationTest {
    private static PythonApp app;
    private static PythonFunction recorded;

    @BeforeAll
    static void load() {
        PythonRuntime python = Apx.python(TestPython.python());
        app = python.app("apxjava.cancellable:app", Path.of("target/test-classes/python"));
        recorded = python.function("apxjava.cancellable:recorded");
    }

    @AfterAll
    static void close() {
        app.close();
    }

    private static List<Object> events(String label) throws InterruptedException {
        waitFor(() -> (List<Object>) recorded.invoke(label), l -> !l.isEmpty());
        return waitFor(() -> (List<Object>) recorded.invoke(label), l -> l.size() > 1);
    }

    @Test
    void cancelReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/cancel"));
        waitFor(() -> (List<Object>) recorded.invoke("cancel"), l -> !l.isEmpty());
        call.cancel(true);
        assertThat(events("cancel")).isEqualTo(List.of("cancel started", "cancel cancelled"));
    }

    @Test
    void orTimeoutReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/or-timeout"));
        call.orTimeout(300, TimeUnit.MILLISECONDS);
        assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class);
        assertThat(events("or-timeout")).isEqualTo(List.of("or-timeout started", "or-timeout cancelled"));
    }

    @Test
    void getWithATimeoutThatRunsOutReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/get-timeout"));
        assertThatThrownBy(() -> call.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(call.isCancelled()).isTrue();
        assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
        assertThat(events("get-timeout")).isEqualTo(List.of("get-timeout started", "get-timeout cancelled"));
    }

    @Test
    void completeByTheCallerReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/complete"));
        waitFor(() -> (List<Object>) recorded.invoke("complete"), l -> !l.isEmpty());
        assertThat(call.complete(null)).isTrue();
        assertThat(call.join()).isNull();
        assertThat(events("complete")).isEqualTo(List.of("complete started", "complete cancelled"));
    }

    @Test
    void completeOnTimeoutReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/complete-on-timeout"));
        call.completeOnTimeout(null, 300, TimeUnit.MILLISECONDS);
        assertThat(call.get(20, TimeUnit.SECONDS)).isNull();
        assertThat(events("complete-on-timeout")).isEqualTo(List.of("complete-on-timeout started", "complete-on-timeout cancelled"));

        PythonFuture<StreamedResponse> stream = app.stream(AppRequest.get("/stream-complete-on-timeout"));
        stream.completeOnTimeout(null, 300, TimeUnit.MILLISECONDS);
        assertThat(stream.get(20, TimeUnit.SECONDS)).isNull();
        assertThat(events("stream-complete-on-timeout")).isEqualTo(List.of("stream-complete-on-timeout started", "stream-complete-on-timeout cancelled"));
    }

    @Test
    void aStreamGivenUpOnBeforeItsHeadReachesTheHandler() throws Exception {
        PythonFuture<StreamedResponse> stream = app.stream(AppRequest.get("/stream-timeout"));
        assertThatThrownBy(() -> stream.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(events("stream-timeout")).isEqualTo(List.of("stream-timeout started", "stream-timeout cancelled"));

        PythonFuture<StreamedResponse> cancelled = app.stream(AppRequest.get("/stream-cancel"));
        waitFor(() -> (List<Object>) recorded.invoke("stream-cancel"), l -> !l.isEmpty());
        cancelled.cancel(true);
        assertThat(events("stream-cancel")).isEqualTo(List.of("stream-cancel started", "stream-cancel cancelled"));
    }

    @Test
    void theAppFinishesAfterTheCancelledCallsAndStillServes() throws Exception {
        assertThat(waitFor(app::inFlight, n -> n == 0)).as("cancelled requests end").isZero();
    }
}
