package dev.apx.asgi;

import java.util.List;

/**
 * The ASGI layer's settings.
 *
 * @param rootPath          the scope's root_path (--root-path)
 * @param proxyHeaders      trust X-Forwarded-Proto/For from {@code forwardedAllowIps}
 * @param forwardedAllowIps client addresses trusted for proxy headers ("*" for all)
 */
public record AsgiConfig(String rootPath, boolean proxyHeaders, List<String> forwardedAllowIps) {
    public static AsgiConfig defaults() {
        return new AsgiConfig("", true, List.of("127.0.0.1"));
    }
}
