package dev.apx.host;

import dev.apx.asgi.AsgiConfig;
import dev.apx.bridge.BridgeConfig;
import dev.apx.config.Interface;
import dev.apx.config.LifespanMode;
import dev.apx.wsgi.WsgiConfig;

import java.nio.file.Path;
import java.util.Map;

/**
 * What {@link HostedApp} needs to load and start one app: the command line's flags
 * ({@code cli/Main}) or the Java API's {@code AppOptions} map onto it.
 *
 * @param app      {@code module:attribute}
 * @param appDir   put first on {@code sys.path}
 * @param factory  {@code app} is a factory to call
 * @param kind     the interface (AUTO resolves against the loaded app)
 * @param lifespan the lifespan mode (ASGI only)
 * @param env      set in {@code os.environ} before the import ({@code --env-file}, {@code AppOptions.env})
 */
public record AppSpec(String app, Path appDir, boolean factory, Interface kind, LifespanMode lifespan,
                      Map<String, String> env, BridgeConfig bridge, AsgiConfig asgi, WsgiConfig wsgi) {
    public AppSpec {
        AppLoader.checkSpec(app);
        env = Map.copyOf(env);
    }
}
