package dev.apx.asgi;

/**
 * The ASGI layer's settings.
 *
 * @param rootPath          the scope's root_path (--root-path)
 * @param proxyHeaders      trust X-Forwarded-Proto/For from {@code forwardedAllowIps}
 * @param forwardedAllowIps peers trusted for proxy headers
 * @param resetContextvars  each HTTP request runs in an empty contextvars.Context (--reset-contextvars)
 * @param pathIncludesRoot  the request target already starts with the root path (a servlet
 *                          container's request URI holds its context and servlet path), so the
 *                          scope's path is the target as received; else (--root-path, a proxy that
 *                          stripped the prefix) the root path is put in front of it
 */
public record AsgiConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps, boolean resetContextvars,
                         boolean pathIncludesRoot) {
    public AsgiConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps, boolean resetContextvars) {
        this(rootPath, proxyHeaders, forwardedAllowIps, resetContextvars, false);
    }

    public AsgiConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps) {
        this(rootPath, proxyHeaders, forwardedAllowIps, false);
    }

    /** These settings for an app mounted at {@code path}, which every request's target starts with (a servlet's mount point). */
    public AsgiConfig withMountPath(String path) {
        return new AsgiConfig(path, proxyHeaders, forwardedAllowIps, resetContextvars, true);
    }

    public static AsgiConfig defaults() {
        return new AsgiConfig("", true, TrustedHosts.parse("127.0.0.1,::1"));
    }
}
