package dev.apx.app;

/**
 * The app-level settings the ASGI and the WSGI side share.
 *
 * @param rootPath          the app's mount point: ASGI's root_path, WSGI's SCRIPT_NAME (--root-path)
 * @param proxyHeaders      trust X-Forwarded-Proto/For from {@code forwardedAllowIps} (--proxy-headers)
 * @param forwardedAllowIps peers trusted for proxy headers (--forwarded-allow-ips)
 * @param pathIncludesRoot  the request target already starts with the root path (a servlet
 *                          container's request URI holds its context and servlet path), so ASGI's
 *                          path is the target as received and WSGI's PATH_INFO is what follows the
 *                          root path; else (--root-path, a proxy that stripped the prefix) the root
 *                          path is put in front of the target
 */
public record AppConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps, boolean pathIncludesRoot) {
    public AppConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps) {
        this(rootPath, proxyHeaders, forwardedAllowIps, false);
    }

    /** These settings for an app mounted at {@code path}, which every request's target starts with (a servlet's mount point). */
    public AppConfig withMountPath(String path) {
        return new AppConfig(path, proxyHeaders, forwardedAllowIps, true);
    }

    /** As Uvicorn: no root path, proxy headers trusted from the loopback addresses. */
    public static AppConfig defaults() {
        return new AppConfig("", true, TrustedHosts.parse("127.0.0.1,::1"));
    }
}
