package dev.apx.server.shared;

/**
 * The request targets apx hands to an app, the same for HTTP/1.1's request line and HTTP/2's
 * {@code :path}: visible ASCII only (RFC 3986: anything else percent-encoded), no fragment (a
 * client sends none, RFC 9110 7.1), and origin form ({@code /...}), {@code *} for OPTIONS, or,
 * in HTTP/1.1 only, absolute form ({@code http://...}). Anything else is a 400.
 */
public final class RequestTargets {
    private RequestTargets() {
    }

    /** Why {@code target} is refused, or null. {@code absoluteForm}: whether {@code http://host/...} may come (HTTP/1.1). */
    public static String problem(String method, String target, boolean absoluteForm) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= ' ' || c >= 0x7f) { // controls, SP, DEL, and raw bytes above ASCII
                return "invalid character in the request target";
            }
            if (c == '#') {
                return "a fragment (#) in the request target";
            }
        }
        boolean form = target.startsWith("/")
                || (absoluteForm && (target.startsWith("http://") || target.startsWith("https://")))
                || (target.equals("*") && method.equals("OPTIONS"));
        return form ? null : "invalid request target";
    }
}
