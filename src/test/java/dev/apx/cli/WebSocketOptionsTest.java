package dev.apx.cli;

import dev.apx.server.api.WebSocketConfig;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The --ws flags as Uvicorn spells them, their defaults, and clear errors for bad values. */
class WebSocketOptionsTest {
    private static WebSocketConfig parse(String... args) {
        Main main = new Main();
        new CommandLine(main).parseArgs(args);
        return main.webSockets.config();
    }

    @Test
    void defaultsAreUvicorns() {
        assertThat(parse("main:app")).isEqualTo(new WebSocketConfig(true, 16 * 1024 * 1024, Duration.ofSeconds(20),
                Duration.ofSeconds(20), true));
    }

    @Test
    void flagsMapOntoTheConfig() {
        WebSocketConfig config = parse("--ws", "wsproto", "--ws-max-size", "1024", "--ws-ping-interval", "2.5",
                "--ws-ping-timeout", "0", "--ws-per-message-deflate", "false", "main:app");
        assertThat(config).isEqualTo(new WebSocketConfig(true, 1024, Duration.ofMillis(2500), Duration.ZERO, false));
        assertThat(parse("--ws", "none", "main:app").enabled()).isFalse();
        assertThat(parse("--ws-max-queue", "4", "main:app").maxQueue()).isEqualTo(4);
        assertThatThrownBy(() -> parse("--ws-max-queue", "0", "main:app")).hasMessageContaining("--ws-max-queue must be at least 1");
    }

    @Test
    void environmentGivesDefaults() {
        Main main = new Main();
        new CommandLine(main).setDefaultValueProvider(new EnvDefaults(java.util.Map.of("APX_WS", "none", "APX_WS_MAX_SIZE", "2048")))
                .parseArgs("main:app");
        assertThat(main.webSockets.config().enabled()).isFalse();
        assertThat(main.webSockets.config().maxSize()).isEqualTo(2048);
    }

    @Test
    void badValuesSayWhatIsWrong() {
        assertThatThrownBy(() -> parse("--ws", "bogus", "main:app")).hasMessageContaining("invalid value for --ws: 'bogus'");
        assertThatThrownBy(() -> parse("--ws-max-size", "0", "main:app")).hasMessageContaining("--ws-max-size must be a positive");
        assertThatThrownBy(() -> parse("--ws-ping-interval", "-1", "main:app")).hasMessageContaining("--ws-ping-interval must be");
    }
}
