package dev.apx.asgi;

/**
 * The ASGI layer's settings.
 *
 * @param rootPath          the scope's root_path (--root-path)
 * @param proxyHeaders      trust X-Forwarded-Proto/For from {@code forwardedAllowIps}
 * @param forwardedAllowIps peers trusted for proxy headers
 * @param resetContextvars  each HTTP request runs in an empty contextvars.Context (--reset-contextvars)
 */
public record AsgiConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps, boolean resetContextvars) {
    public AsgiConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps) {
        this(rootPath, proxyHeaders, forwardedAllowIps, false);
    }

    /** These settings with another root path (a servlet's context and servlet path). */
    public AsgiConfig withRootPath(String path) {
        return new AsgiConfig(path, proxyHeaders, forwardedAllowIps, resetContextvars);
    }

    public static AsgiConfig defaults() {
        return new AsgiConfig("", true, TrustedHosts.parse("127.0.0.1,::1"));
    }
}
