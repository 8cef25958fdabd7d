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

    /** Waits (up to 20 s) until the handler of {@code /label} has recorded its start. */
    private static void awaitStart(String label) throws InterruptedException {
        waitFor(() -> (List<Object>) recorded.invoke(label), l -> !l.isEmpty());
    }

    /** Asserts that the handler of {@code /label} started and then saw its CancelledError (waited for up to 20 s). */
    private static void assertCancelled(String label) throws InterruptedException {
        awaitStart(label);
        assertThat(waitFor(() -> (List<Object>) recorded.invoke(label), l -> l.size() > 1))
                .isEqualTo(List.of(label + " started", label + " cancelled"));
    }

    @Test
    void cancelReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/cancel"));
        awaitStart("cancel");
        call.cancel(true);
        assertCancelled("cancel");
    }

    @Test
    void orTimeoutReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/or-timeout"));
        call.orTimeout(300, TimeUnit.MILLISECONDS);
        assertThatThrownBy(call::join).hasCauseInstanceOf(TimeoutException.class);
        assertCancelled("or-timeout");
    }

    @Test
    void getWithATimeoutThatRunsOutReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/get-timeout"));
        assertThatThrownBy(() -> call.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(call.isCancelled()).isTrue();
        assertThatThrownBy(call::join).isInstanceOf(CancellationException.class);
        assertCancelled("get-timeout");
    }

    @Test
    void completeByTheCallerReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/complete"));
        awaitStart("complete");
        assertThat(call.complete(null)).isTrue();
        assertThat(call.join()).isNull();
        assertCancelled("complete");
    }

    @Test
    void completeOnTimeoutReachesTheHandler() throws Exception {
        PythonFuture<AppResponse> call = app.call(AppRequest.get("/complete-on-timeout"));
        call.completeOnTimeout(null, 300, TimeUnit.MILLISECONDS);
        assertThat(call.get(20, TimeUnit.SECONDS)).isNull();
        assertCancelled("complete-on-timeout");

        PythonFuture<StreamedResponse> stream = app.stream(AppRequest.get("/stream-complete-on-timeout"));
        stream.completeOnTimeout(null, 300, TimeUnit.MILLISECONDS);
        assertThat(stream.get(20, TimeUnit.SECONDS)).isNull();
        assertCancelled("stream-complete-on-timeout");
    }

    @Test
    void aStreamGivenUpOnBeforeItsHeadReachesTheHandler() throws Exception {
        PythonFuture<StreamedResponse> stream = app.stream(AppRequest.get("/stream-timeout"));
        assertThatThrownBy(() -> stream.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertCancelled("stream-timeout");

        PythonFuture<StreamedResponse> cancelled = app.stream(AppRequest.get("/stream-cancel"));
        awaitStart("stream-cancel");
        cancelled.cancel(true);
        assertCancelled("stream-cancel");
    }

    @Test
    void theAppFinishesAfterTheCancelledCallsAndStillServes() throws Exception {
        assertThat(waitFor(app::inFlight, n -> n == 0)).as("cancelled requests end").isZero();
    }
}
