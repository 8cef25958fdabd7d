package dev.apx.app;

/**
 * The app-level settings the ASGI and the WSGI side share.
 *
 * @param rootPath          the app's mount point: ASGI's root_path, WSGI's SCRIPT_NAME (--root-path)
 * @param proxyHeaders      trust X-Forwarded-Proto/For from {@code forwardedAllowIps} (--proxy-headers)
 * @param forwardedAllowIps peers trusted for proxy headers (--forwarded-allow-ips)
 */
public record AppConfig(String rootPath, boolean proxyHeaders, TrustedHosts forwardedAllowIps) {
    /** As Uvicorn: no root path, proxy headers trusted from the loopback addresses. */
    public static AppConfig defaults() {
        return new AppConfig("", true, TrustedHosts.parse("127.0.0.1,::1"));
    }
}
