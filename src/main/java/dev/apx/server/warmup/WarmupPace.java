package dev.apx.server.warmup;

/**
 * When the warm-up's client may send. Asked on the client's thread only, before each connection and
 * each request, so an implementation keeps its own state without locks.
 */
public interface WarmupPace {
    /** Before the port opens: nothing to wait for. */
    WarmupPace ALWAYS = new WarmupPace() {
        @Override
        public boolean paused() {
            return false;
        }

        @Override
        public boolean over() {
            return false;
        }
    };

    /** True while the warm-up should hold back: no new connection or request until it is false again. */
    boolean paused();

    /** True once the warm-up should end before its budget is spent. */
    boolean over();
}
