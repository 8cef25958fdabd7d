package dev.apx.server;

import dev.apx.server.api.HttpObserver;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** An {@link HttpObserver} that writes every call down as a line, e.g. {@code response GET 200 req=3 resp=5}. */
public final class RecordingObserver implements HttpObserver {
    public final List<String> events = new ArrayList<>();

    @Override
    public void connectionOpened() {
        events.add("open");
    }

    @Override
    public void connectionClosed() {
        events.add("closed");
    }

    @Override
    public void response(String method, int status, long nanos, long requestBytes, long responseBytes) {
        assertThat(nanos).isNotNegative();
        events.add("response " + method + " " + status + " req=" + requestBytes + " resp=" + responseBytes);
    }

    @Override
    public void refused(int status) {
        events.add("refused " + status);
    }

    @Override
    public void webSocketOpened() {
        events.add("ws open");
    }

    @Override
    public void webSocketClosed() {
        events.add("ws closed");
    }

    @Override
    public void webSocketMessageIn() {
        events.add("ws in");
    }

    @Override
    public void webSocketMessageOut() {
        events.add("ws out");
    }
}
