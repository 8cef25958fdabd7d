package dev.apx.bridge;

import dev.apx.python.Interpreter;
import dev.apx.python.TestPython;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge rules in two runtimes serving at once: each test of the contract runs in a runtime of
 * its own (a glibc namespace, as {@code --interpreters} makes) on the test's thread and, at the same
 * moment, in the base runtime on a second thread, each with its own bridge, loop thread and GIL.
 * Both must pass. Anything one bridge or runtime shares with another by mistake (a static, a
 * thread's state, a counter) shows as a failure of one of the two.
 */
@ExtendWith(TwoRuntimesContract.AtOnce.class)
abstract class TwoRuntimesContract extends BridgeContract {
    /** The same contract, same configuration, in the base runtime. */
    private BridgeContract partner;
    /** Tests of at least 200 ms in both runtimes that did not overlap in time (must stay empty). */
    private final List<String> notConcurrent = new ArrayList<>();
    private int concurrent;

    @Override
    Interpreter interpreter() {
        return TestPython.isolated();
    }

    @BeforeAll
    void startTheSameBridgeInTheBaseRuntime() {
        TwoRuntimesContract self = this;
        partner = new BridgeContract() {
            @Override
            BridgeConfig config() {
                return self.config();
            }

            @Override
            int collisionRequests() {
                return self.collisionRequests();
            }
        };
        partner.startBridge();
        assertThat(partner.harness.python.namespace()).isNotEqualTo(harness.python.namespace());
    }

    @AfterAll
    void stopTheBaseRuntimesBridge() {
        if (partner == null) {
            return; // not supported on this Python
        }
        partner.stopBridge();
        assertThat(notConcurrent).as("tests that ran one runtime after the other").isEmpty();
        assertThat(concurrent).as("tests that ran in both runtimes at once").isPositive();
    }

    /** Runs each test method on this instance and, on a second thread at the same moment, on the partner. */
    static final class AtOnce implements InvocationInterceptor {
        @Override
        public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> context,
                                        ExtensionContext extension) throws Throwable {
            TwoRuntimesContract test = (TwoRuntimesContract) context.getTarget().orElseThrow();
            Method method = context.getExecutable();
            method.setAccessible(true);
            CountDownLatch go = new CountDownLatch(2);
            long[] partnerSpan = new long[2];
            CompletableFuture<Void> partnerDone = new CompletableFuture<>();
            Thread.ofPlatform().name("base-runtime-" + method.getName()).start(() -> {
                go.countDown();
                awaitQuietly(go);
                partnerSpan[0] = System.nanoTime();
                Throwable failed = null;
                try {
                    method.invoke(test.partner);
                } catch (InvocationTargetException e) {
                    failed = e.getCause();
                } catch (Throwable t) {
                    failed = t;
                }
                partnerSpan[1] = System.nanoTime(); // before the completion, which publishes it to the test thread
                if (failed == null) {
                    partnerDone.complete(null);
                } else {
                    partnerDone.completeExceptionally(failed);
                }
            });
            go.countDown();
            go.await();
            long start = System.nanoTime();
            Throwable mine = null;
            try {
                invocation.proceed();
            } catch (Throwable t) {
                mine = t;
            }
            long end = System.nanoTime();
            Throwable theirs = null;
            try {
                partnerDone.get(5, TimeUnit.MINUTES);
            } catch (java.util.concurrent.ExecutionException e) {
                theirs = e.getCause();
            }
            if (theirs != null) {
                AssertionError failed = new AssertionError("in the base runtime (while the isolated runtime ran the same test"
                        + (mine == null ? ", which passed" : ", which failed too") + "): " + theirs, theirs);
                if (mine != null) {
                    failed.addSuppressed(mine);
                }
                throw failed;
            }
            if (mine != null) {
                throw mine;
            }
            synchronized (test) {
                boolean overlapped = start < partnerSpan[1] && partnerSpan[0] < end;
                if (overlapped) {
                    test.concurrent++;
                } else if (end - start > 200_000_000L && partnerSpan[1] - partnerSpan[0] > 200_000_000L) {
                    test.notConcurrent.add(method.getName());
                }
            }
        }

        private static void awaitQuietly(CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
