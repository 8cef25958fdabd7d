package dev.apx.server.http2;

/**
 * The client's most recent stream ids on one connection and whether the client ended each (sent
 * END_STREAM), kept after Netty forgets a stream (it drops one as it closes). With it a frame on a
 * stream Netty no longer knows can be told apart, which Netty alone cannot do and answers with the
 * lesser error (RST_STREAM STREAM_CLOSED) in every case:
 * <ul>
 * <li>an id the client never opened, below one it did: it opened a stream out of order (RFC 9113 5.1.1);</li>
 * <li>an id whose stream the client had ended: a frame after END_STREAM (RFC 9113 5.1, "closed");</li>
 * <li>an id the client had not ended (the server reset it, or the client did), or one too old to be
 *     remembered: frames may have crossed the reset, Netty's stream error stands.</li>
 * </ul>
 * A fixed window of {@value #SIZE} ids (an int and a bit each): older ids are forgotten, never guessed.
 * Event loop only.
 */
final class StreamHistory {
    static final int SIZE = 64;

    enum Seen { NEVER_OPENED, ENDED_BY_CLIENT, OPEN_OR_RESET, FORGOTTEN }

    private final int[] ids = new int[SIZE];
    private long ended; // bit i: the stream of ids[i] was ended by the client
    private int count; // ids recorded, at most SIZE
    private int next; // the slot of the next id
    private int forgottenUpTo; // the highest id pushed out of the window

    /** A stream the client opened (or tried to: one the server refused before Netty created it). */
    void opened(int id, boolean endedByClient) {
        if (count == SIZE) {
            forgottenUpTo = Math.max(forgottenUpTo, ids[next]);
        } else {
            count++;
        }
        ids[next] = id;
        ended = endedByClient ? ended | 1L << next : ended & ~(1L << next);
        next = (next + 1) % SIZE;
    }

    /** END_STREAM came from the client on a stream opened before (its last DATA or its trailers). */
    void endedByClient(int id) {
        int slot = slotOf(id);
        if (slot >= 0) {
            ended |= 1L << slot;
        }
    }

    /** What is known of {@code id}, an id at or below the highest stream the client opened. */
    Seen seen(int id) {
        int slot = slotOf(id);
        if (slot >= 0) {
            return (ended & 1L << slot) != 0 ? Seen.ENDED_BY_CLIENT : Seen.OPEN_OR_RESET;
        }
        return id > forgottenUpTo ? Seen.NEVER_OPENED : Seen.FORGOTTEN;
    }

    /** The newest slot holding {@code id} (recent ids are the ones asked about), or -1. */
    private int slotOf(int id) {
        for (int i = 1; i <= count; i++) {
            int slot = (next - i + SIZE) % SIZE;
            if (ids[slot] == id) {
                return slot;
            }
        }
        return -1;
    }
}
