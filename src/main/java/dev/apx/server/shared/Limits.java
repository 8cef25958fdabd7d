package dev.apx.server.shared;

import dev.apx.config.Defaults;

/**
 * What one client may ask of the server before it is refused or cut off. Defaults, and the flag
 * that sets each (docs/security.md has the reasoning):
 *
 * <pre>
 * requestFields        100     --limit-request-fields       431 beyond this many header fields (gunicorn's default)
 * requestFieldSize     8190    --limit-request-field-size   431 for a header field ("name: value") longer than this (gunicorn)
 * maxBody              0       --limit-max-body             413 for a body longer than this; 0: no limit (as Uvicorn)
 * headerTimeoutSeconds 60      --timeout-request-header     close a connection whose request head is not complete after this (nginx, Node)
 * bodyTimeoutSeconds   60      --timeout-request-body       408 and close when an awaited request body brings no byte for this long (nginx)
 * writeTimeoutSeconds  60      --timeout-write              close a connection whose client read nothing of a pending response for this long
 * maxRequests          0       --limit-max-requests         stop the server gracefully after this many requests; 0: never
 * </pre>
 */
public record Limits(int requestFields, int requestFieldSize, long maxBody, int headerTimeoutSeconds,
                     int bodyTimeoutSeconds, int writeTimeoutSeconds, long maxRequests) {

    public Limits {
        positive("--limit-request-fields", requestFields);
        positive("--limit-request-field-size", requestFieldSize);
        positive("--timeout-request-header", headerTimeoutSeconds);
        positive("--timeout-request-body", bodyTimeoutSeconds);
        positive("--timeout-write", writeTimeoutSeconds);
        if (maxBody < 0) {
            throw new IllegalArgumentException("--limit-max-body must be 0 (no limit) or more, got " + maxBody);
        }
        if (maxRequests < 0) {
            throw new IllegalArgumentException("--limit-max-requests must be 0 (no limit) or more, got " + maxRequests);
        }
    }

    public static Limits defaults() {
        return new Limits(Defaults.LIMIT_REQUEST_FIELDS, Defaults.LIMIT_REQUEST_FIELD_SIZE, 0, Defaults.TIMEOUT_REQUEST_HEADER,
                Defaults.TIMEOUT_REQUEST_BODY, Defaults.TIMEOUT_WRITE, 0);
    }

    public Limits withMaxBody(long bytes) {
        return new Limits(requestFields, requestFieldSize, bytes, headerTimeoutSeconds, bodyTimeoutSeconds, writeTimeoutSeconds, maxRequests);
    }

    public Limits withTimeouts(int headerSeconds, int writeSeconds) {
        return new Limits(requestFields, requestFieldSize, maxBody, headerSeconds, bodyTimeoutSeconds, writeSeconds, maxRequests);
    }

    public Limits withBodyTimeout(int seconds) {
        return new Limits(requestFields, requestFieldSize, maxBody, headerTimeoutSeconds, seconds, writeTimeoutSeconds, maxRequests);
    }

    public Limits withMaxRequests(long count) {
        return new Limits(requestFields, requestFieldSize, maxBody, headerTimeoutSeconds, bodyTimeoutSeconds, writeTimeoutSeconds, count);
    }

    private static void positive(String flag, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(flag + " must be at least 1, got " + value);
        }
    }
}
