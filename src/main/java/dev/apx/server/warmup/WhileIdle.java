package dev.apx.server.warmup;

import dev.apx.server.Server;

import java.util.concurrent.TimeUnit;

/**
 * The pace of a warm-up that runs after the real port opened: it sends only once the real server has
 * been without requests for {@link #QUIET_NANOS}, so real clients never wait behind it, and it ends
 * once the real server has answered as many requests as the warm-up's budget (real traffic compiles
 * the paths it takes by itself) or {@link #stop} is called. A health check every few seconds pauses
 * it for a moment only.
 */
public final class WhileIdle implements WarmupPace {
    static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Server real;
    private final long budget;
    private final long startRequests;
    private volatile boolean stopped;
    private long seen;          // the real server's request count when last asked
    private long quietSince;    // when that count last moved

    public WhileIdle(Server real, int budget) {
        this.real = real;
        this.budget = budget;
        this.startRequests = real.requests();
        this.seen = startRequests;
        this.quietSince = System.nanoTime() - QUIET_NANOS; // nothing served yet: go at once
    }

    /** Ends the warm-up soon (a shutdown, a reload): its connections close after their current request. */
    public void stop() {
        stopped = true;
    }

    @Override
    public boolean paused() {
        long requests = real.requests();
        long now = System.nanoTime();
        if (requests != seen || real.inFlight() > 0) {
            seen = requests;
            quietSince = now;
            return true;
        }
        return now - quietSince < QUIET_NANOS;
    }

    @Override
    public boolean over() {
        return stopped || real.requests() - startRequests >= budget;
    }
}
