package dev.apx.cli;

import dev.apx.config.ApxConfig;
import dev.apx.config.Interface;
import dev.apx.config.IoMode;
import dev.apx.config.LogLevel;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The command line's options onto the typed configuration: its defaults are the model's, and each flag sets its setting. */
class ConfigMapperTest {
    @Test
    void noFlagsGiveTheModelsDefaults() {
        assertThat(Main.toConfig("main:app")).isEqualTo(ApxConfig.builder().app(app -> app.spec("main:app")).build());
    }

    @Test
    void flagsSetTheirSettings() {
        ApxConfig config = Main.toConfig("--port", "0", "--host", "::1", "--interface", "wsgi", "--io", "loop", "--log-level", "debug",
                "--limit-max-body", "1024", "--header", "x-a:1", "--header", "x-b:2", "--no-access-log", "--reload-dir", "src",
                "--timeout-graceful-shutdown", "3", "--ssl-certfile", "cert.pem", "--app-dir", "examples", "main:app");
        assertThat(config).isEqualTo(ApxConfig.builder()
                .app(app -> app.spec("main:app").appDir(Path.of("examples")).appInterface(Interface.WSGI))
                .bind(bind -> bind.port(0).host("::1"))
                .runtime(runtime -> runtime.io(IoMode.LOOP))
                .logging(logging -> logging.level(LogLevel.DEBUG).accessLog(false))
                .limits(limits -> limits.maxBody(1024).gracefulShutdownTimeout(3))
                .http(http -> http.headers(List.of("x-a:1", "x-b:2")))
                .workers(workers -> workers.reloadDirs(List.of(Path.of("src"))))
                .tls(tls -> tls.certFile(Path.of("cert.pem")))
                .build());
    }

    @Test
    void uvicornsSpellingsMapOntoOneSetting() {
        assertThat(Main.toConfig("--http", "h11", "main:app").http().http2()).isFalse();
        assertThat(Main.toConfig("--http", "zttp", "main:app").http().http2()).isTrue();
        assertThat(Main.toConfig("--ws", "wsproto", "main:app").webSockets().enabled()).isTrue();
        assertThat(Main.toConfig("--ws", "none", "main:app").webSockets().enabled()).isFalse();
        assertThat(Main.toConfig("--h11-max-incomplete-event-size", "100", "main:app").limits().requestHeaders()).isEqualTo(100);
    }

    @Test
    void badFlagsAndValuesAreNamed() {
        assertThatThrownBy(() -> Main.toConfig("--no-such-flag", "main:app")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--no-such-flag");
        assertThatThrownBy(() -> Main.toConfig("--backlog", "0", "main:app")).isInstanceOf(BadFlag.class)
                .hasMessage("--backlog must be 1 or more, got 0");
        assertThatThrownBy(() -> Main.toConfig("--h11-max-incomplete-event-size", "0", "main:app")).isInstanceOf(BadFlag.class)
                .hasMessage("--h11-max-incomplete-event-size must be 1 or more, got 0");
        assertThatThrownBy(() -> Main.toConfig("--http", "1", "--h2c-upgrade", "main:app")).isInstanceOf(BadFlag.class)
                .hasMessage("--h2c-upgrade conflicts with --http 1 (HTTP/1.1 only)");
    }
}
