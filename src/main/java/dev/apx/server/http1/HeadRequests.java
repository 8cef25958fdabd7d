package dev.apx.server.http1;

import java.util.ArrayDeque;

/**
 * Which of the decoded requests, in order, were HEAD: the {@link RequestDecoder} adds one entry per
 * request it passes on, the {@link ResponseEncoder} takes one per final response (the job
 * HttpServerCodec does inside itself). Event loop only.
 */
public final class HeadRequests {
    private final ArrayDeque<Boolean> pending = new ArrayDeque<>();

    void add(boolean head) {
        pending.add(head);
    }

    /** Whether the request the next final response answers was HEAD (false when there is none: our own error responses). */
    boolean next() {
        Boolean head = pending.poll();
        return head != null && head;
    }
}
