package dev.apx.server.http2;

import org.junit.jupiter.api.Test;

import static dev.apx.server.http2.StreamHistory.Seen.ENDED_BY_CLIENT;
import static dev.apx.server.http2.StreamHistory.Seen.FORGOTTEN;
import static dev.apx.server.http2.StreamHistory.Seen.NEVER_OPENED;
import static dev.apx.server.http2.StreamHistory.Seen.OPEN_OR_RESET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link StreamHistory} answers, on which {@link ConnectionHandler} turns a stream error into a
 * connection error: only what it knows, and nothing about ids that left its window (the raw-frame
 * cases over a socket are {@code Http2StreamStatesTest}).
 */
class StreamHistoryTest {
    @Test
    void tellsNeverOpenedFromEndedFromNotEnded() {
        StreamHistory history = new StreamHistory();
        history.opened(1, true);   // HEADERS with END_STREAM
        history.opened(5, false);  // 3 skipped; 5 has a body coming
        history.opened(7, false);  // refused or reset before the client ended it
        history.endedByClient(5);  // its last DATA

        assertThat(history.seen(1)).isEqualTo(ENDED_BY_CLIENT);
        assertThat(history.seen(3)).isEqualTo(NEVER_OPENED);
        assertThat(history.seen(5)).isEqualTo(ENDED_BY_CLIENT);
        assertThat(history.seen(7)).isEqualTo(OPEN_OR_RESET);
    }

    @Test
    void idsPushedOutOfTheWindowAreForgottenNotGuessed() {
        StreamHistory history = new StreamHistory();
        history.opened(1, true);
        int id = 5; // 3 never opened
        for (int i = 0; i < StreamHistory.SIZE; i++, id += 2) {
            history.opened(id, true);
        }
        assertThat(history.seen(1)).as("pushed out").isEqualTo(FORGOTTEN);
        assertThat(history.seen(3)).as("above every id pushed out: had it been opened, it would be in the window")
                .isEqualTo(NEVER_OPENED);
        history.opened(id, true); // pushes 5 out
        assertThat(history.seen(3)).as("below an id pushed out").isEqualTo(FORGOTTEN);
        assertThat(history.seen(5)).isEqualTo(FORGOTTEN);
        assertThat(history.seen(7)).isEqualTo(ENDED_BY_CLIENT);
        assertThat(history.seen(id)).isEqualTo(ENDED_BY_CLIENT);
    }

    @Test
    void anIdRecordedAgainCountsAsItsNewestRecord() {
        StreamHistory history = new StreamHistory();
        history.opened(3, false); // refused (the stream limit) before Netty created it
        history.opened(3, true);  // then opened by the client after all
        assertThat(history.seen(3)).isEqualTo(ENDED_BY_CLIENT);
    }
}
