"""Raw HTTP/2 frames (hyperframe + hpack, no client state machine) for Http2StreamStatesTest: what
RFC 9113 section 5.1 demands of a server when a client sends HEADERS or DATA on a stream in the
wrong state, the cases h2spec checks (http2/5.1.1/2, http2/5.1/6, 9, 11, 12) and the ones beside
them that must stay stream errors (frames racing a reset the server sent).

usage: h2_stream_states.py PORT CASE,CASE...   (cleartext, prior knowledge; apxtest.tls_apps:app)
       (the after_goaway_* cases wait for the GOAWAY the test's server shutdown sends while /slow runs)
       H2_CA=ca.pem h2_stream_states.py ...     (TLS with ALPN h2, trusting that CA)
Prints "ok: CASE" per case whose answer was the RFC's; a wrong answer raises (exit 1) saying what came.
"""
import os
import socket
import ssl
import sys
import time

import hpack
from hyperframe.frame import DataFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame, RstStreamFrame, SettingsFrame, WindowUpdateFrame

PORT = int(sys.argv[1])
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
PROTOCOL_ERROR, STREAM_CLOSED, CANCEL = 0x1, 0x5, 0x8
NAMES = {0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x5: "STREAM_CLOSED", 0x7: "REFUSED_STREAM", 0x8: "CANCEL"}
# A prompt answer: the server has everything it needs when the frame arrives (h2spec waits 2 s by default).
PROMPT = 1.5


class Connection:
    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=10)
        if os.environ.get("H2_CA"):
            context = ssl.create_default_context(cafile=os.environ["H2_CA"])
            context.set_alpn_protocols(["h2"])
            self.sock = context.wrap_socket(self.sock, server_hostname="127.0.0.1")
            assert self.sock.selected_alpn_protocol() == "h2", self.sock.selected_alpn_protocol()
        self.encoder = hpack.Encoder()
        self.buffer = b""
        self.closed = False
        self.seen = []  # what came, for failure messages
        self.next_stream = 101  # the stream still_serves() opens
        self.sock.sendall(PREFACE + SettingsFrame(0).serialize())
        self.until(lambda f: isinstance(f, SettingsFrame) and "ACK" not in f.flags, 10, "the server's SETTINGS")
        self.sock.sendall(SettingsFrame(0, flags=["ACK"]).serialize())

    def headers(self, stream, path="/scope", end_stream=True, extra=()):
        fields = [(":method", "POST" if not end_stream else "GET"), (":scheme", "http"), (":path", path),
                  (":authority", "127.0.0.1:%d" % PORT), *extra]
        flags = ["END_HEADERS"] + (["END_STREAM"] if end_stream else [])
        self.sock.sendall(HeadersFrame(stream, self.encoder.encode(fields), flags=flags).serialize())

    def data(self, stream, payload=b"test", end_stream=True):
        self.sock.sendall(DataFrame(stream, payload, flags=["END_STREAM"] if end_stream else []).serialize())

    def rst(self, stream, code=CANCEL):
        self.sock.sendall(RstStreamFrame(stream, code).serialize())

    def next_frame(self, deadline):
        """The next frame from the server, or None once the socket closed or the deadline passed."""
        while True:
            if len(self.buffer) >= 9:
                length = int.from_bytes(self.buffer[:3], "big")
                if len(self.buffer) >= 9 + length:
                    frame, length = Frame.parse_frame_header(memoryview(self.buffer[:9]))
                    frame.parse_body(memoryview(self.buffer[9:9 + length]))
                    self.buffer = self.buffer[9 + length:]
                    self.seen.append(describe(frame))
                    if isinstance(frame, PingFrame) and "ACK" not in frame.flags:
                        self.sock.sendall(PingFrame(0, frame.opaque_data, flags=["ACK"]).serialize())
                    return frame
            remaining = deadline - time.monotonic()
            if self.closed or remaining <= 0:
                return None
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return None
            except (ConnectionResetError, ssl.SSLError):
                chunk = b""
            if not chunk:
                self.closed = True
                self.seen.append("(connection closed)")
            self.buffer += chunk

    def until(self, match, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            frame = self.next_frame(deadline)
            if frame is None:
                raise AssertionError("gave up waiting for %s; the server sent: %s" % (what, ", ".join(self.seen) or "nothing"))
            if match(frame):
                return frame

    def response_ends(self, stream):
        self.until(lambda f: f.stream_id == stream and isinstance(f, (HeadersFrame, DataFrame)) and "END_STREAM" in f.flags,
                   10, "the end of stream %d's response" % stream)

    def close(self):
        self.sock.close()


def describe(frame):
    if isinstance(frame, GoAwayFrame):
        return "GOAWAY(last %d, %s)" % (frame.last_stream_id, NAMES.get(frame.error_code, frame.error_code))
    if isinstance(frame, RstStreamFrame):
        return "RST_STREAM(%d, %s)" % (frame.stream_id, NAMES.get(frame.error_code, frame.error_code))
    return "%s(%d%s)" % (type(frame).__name__.replace("Frame", "").upper(), frame.stream_id,
                         ", END_STREAM" if "END_STREAM" in frame.flags else "")


def connection_error(conn, code, what):
    """RFC 9113 5.4.1: a GOAWAY with the code, then the connection closes."""
    goaway = conn.until(lambda f: isinstance(f, GoAwayFrame), PROMPT, "GOAWAY(%s) for %s" % (NAMES[code], what))
    if goaway.error_code != code:
        raise AssertionError("%s: GOAWAY(%s), not %s; the server sent: %s"
                             % (what, NAMES.get(goaway.error_code), NAMES[code], ", ".join(conn.seen)))
    conn.next_frame(time.monotonic() + 5)
    while not conn.closed:
        if conn.next_frame(time.monotonic() + 5) is None and not conn.closed:
            raise AssertionError("%s: the connection stayed open after the GOAWAY" % what)


def stream_error(conn, stream, code, what):
    """RFC 9113 5.4.2: RST_STREAM with the code on that stream, and the connection serves on."""
    reset = conn.until(lambda f: isinstance(f, (RstStreamFrame, GoAwayFrame)) and (f.stream_id in (0, stream)), PROMPT,
                       "RST_STREAM(%d, %s) for %s" % (stream, NAMES[code], what))
    if not isinstance(reset, RstStreamFrame) or reset.error_code != code:
        raise AssertionError("%s: expected RST_STREAM(%d, %s); the server sent: %s" % (what, stream, NAMES[code], ", ".join(conn.seen)))
    still_serves(conn, what)


def still_serves(conn, what):
    """A new stream on the same connection is answered: the error cost one stream, not the connection."""
    stream = conn.next_stream
    conn.headers(stream)
    try:
        conn.response_ends(stream)
    except AssertionError as e:
        raise AssertionError("%s: the connection no longer serves: %s" % (what, e))
    if any(s.startswith("GOAWAY") for s in conn.seen):
        raise AssertionError("%s: a stream error, yet the server sent: %s" % (what, ", ".join(conn.seen)))


# ---- the cases; each opens its own connection


def lower_stream_id():
    """h2spec http2/5.1.1/2: a new stream numerically smaller than one opened: connection error PROTOCOL_ERROR."""
    conn = Connection()
    conn.headers(5)
    conn.headers(3)
    connection_error(conn, PROTOCOL_ERROR, "HEADERS on stream 3 after stream 5")


def skipped_stream_id():
    """Skipping ids is allowed (1, then 7); reopening a skipped one (5) afterwards is the same PROTOCOL_ERROR."""
    conn = Connection()
    conn.headers(1)
    conn.response_ends(1)
    conn.headers(7)
    conn.response_ends(7)
    conn.headers(5)
    connection_error(conn, PROTOCOL_ERROR, "HEADERS on the skipped stream 5 after stream 7")


def headers_on_closed_stream():
    """h2spec http2/5.1/12: HEADERS on a stream closed after both ends sent END_STREAM: connection error STREAM_CLOSED."""
    conn = Connection()
    conn.headers(1)
    conn.response_ends(1)
    conn.headers(1)
    connection_error(conn, STREAM_CLOSED, "HEADERS on the closed stream 1")


def data_on_closed_stream():
    """h2spec http2/5.1/11: DATA on a stream closed after both ends sent END_STREAM: connection error STREAM_CLOSED."""
    conn = Connection()
    conn.headers(1)
    conn.response_ends(1)
    conn.data(1)
    connection_error(conn, STREAM_CLOSED, "DATA on the closed stream 1")


def headers_on_half_closed_stream():
    """h2spec http2/5.1/6: a second HEADERS (END_STREAM) on a half-closed (remote) stream: stream error STREAM_CLOSED."""
    conn = Connection()
    conn.headers(1, path="/slow?1")  # the response takes a second: the stream stays half-closed (remote)
    conn.headers(1, path="/slow?1")
    stream_error(conn, 1, STREAM_CLOSED, "HEADERS on the half-closed (remote) stream 1")


def h2spec_half_closed():
    """h2spec http2/5.1/6 as it sends it: both HEADERS at once to a fast route. The second finds the stream
    half-closed (remote), or closed if the response was already out: STREAM_CLOSED either way, at once."""
    conn = Connection()
    conn.headers(1)
    conn.headers(1)
    answer = conn.until(lambda f: isinstance(f, (RstStreamFrame, GoAwayFrame)), PROMPT, "STREAM_CLOSED for the second HEADERS")
    if answer.error_code != STREAM_CLOSED:
        raise AssertionError("expected STREAM_CLOSED; the server sent: %s" % ", ".join(conn.seen))


def headers_after_client_reset():
    """h2spec http2/5.1/9: HEADERS after the client's own RST_STREAM: stream error STREAM_CLOSED, the connection lives."""
    conn = Connection()
    conn.headers(1, path="/upload", end_stream=False)
    conn.rst(1)
    conn.headers(1)
    stream_error(conn, 1, STREAM_CLOSED, "HEADERS on stream 1 after the client reset it")


def data_after_server_reset():
    """DATA the client sent before it heard the server's answer ending the stream (a request refused for its
    101 header fields, --limit-request-fields 100): not a connection error; the server may take it, ignore it
    (RFC 9113 5.1, "closed": frames racing a RST_STREAM it sent) or answer RST_STREAM(STREAM_CLOSED)."""
    conn = Connection()
    conn.headers(1, path="/upload", end_stream=False, extra=[("x-h%d" % i, "v") for i in range(101)])
    conn.data(1, end_stream=False)
    conn.response_ends(1)
    conn.data(1)
    still_serves(conn, "DATA on stream 1 after the server's 431 ended it")


def data_after_refused_stream():
    """With --h2-max-concurrent-streams 1: stream 3 is refused (RST_STREAM REFUSED_STREAM) while 1 runs; the DATA
    the client had already sent on 3 crosses the reset: a stream error at most, and stream 1 is still answered."""
    conn = Connection()
    conn.headers(1, path="/upload", end_stream=False)
    conn.headers(3, path="/upload", end_stream=False)
    conn.data(3, end_stream=False)
    conn.until(lambda f: isinstance(f, RstStreamFrame) and f.stream_id == 3, PROMPT, "RST_STREAM(3, REFUSED_STREAM)")
    conn.data(3)
    conn.data(1)
    try:
        conn.response_ends(1)
    except AssertionError as e:
        raise AssertionError("stream 1 after the DATA that crossed stream 3's refusal: %s" % e)
    if not any(s == "RST_STREAM(3, REFUSED_STREAM)" for s in conn.seen) or any(s.startswith("GOAWAY") for s in conn.seen):
        raise AssertionError("expected RST_STREAM(3, REFUSED_STREAM) and no GOAWAY; the server sent: %s" % ", ".join(conn.seen))


def frames_after_goaway(then):
    """A stream opened after the server's GOAWAY (a graceful shutdown or drain, while stream 1 runs) with a frame
    right behind its HEADERS, as a client that had not read the GOAWAY yet sends them (httpx: a WINDOW_UPDATE on
    each new stream). RFC 9113 6.8: the server refuses or ignores that stream; what follows on it is no connection
    error, stream 1's response arrives whole and the connection ends with the GOAWAY(NO_ERROR) only."""
    conn = Connection()
    conn.headers(1, path="/slow?2")
    goaway = conn.until(lambda f: isinstance(f, GoAwayFrame), 15, "the GOAWAY of the server's shutdown")
    if goaway.error_code != 0 or goaway.last_stream_id != 1:
        raise AssertionError("expected GOAWAY(last 1, NO_ERROR); the server sent: %s" % ", ".join(conn.seen))
    conn.headers(3, end_stream=then == "window_update", path="/scope" if then == "window_update" else "/upload")
    if then == "window_update":
        conn.sock.sendall(WindowUpdateFrame(3, 65535).serialize())
    elif then == "data":
        conn.data(3, payload=b"x" * 1000, end_stream=False)
        conn.data(3)
    else:
        conn.rst(3)
    conn.sock.sendall(WindowUpdateFrame(0, 1000).serialize())  # connection-level state is still processed
    body = b""
    deadline = time.monotonic() + 15
    while True:
        frame = conn.next_frame(deadline)
        if frame is None:
            break
        if isinstance(frame, DataFrame) and frame.stream_id == 1:
            body += frame.data
    if body != b"slow done" or not any(s == "DATA(1, END_STREAM)" for s in conn.seen):
        raise AssertionError("stream 1's response was cut (%r); the server sent: %s" % (body, ", ".join(conn.seen)))
    if [s for s in conn.seen if s.startswith("GOAWAY")] != ["GOAWAY(last 1, NO_ERROR)"] or not conn.closed:
        raise AssertionError("expected the one GOAWAY(NO_ERROR), then the close; the server sent: %s" % ", ".join(conn.seen))


def after_goaway_window_update():
    frames_after_goaway("window_update")


def after_goaway_data():
    frames_after_goaway("data")


def after_goaway_rst_stream():
    frames_after_goaway("rst_stream")


CASES = {f.__name__: f for f in (lower_stream_id, skipped_stream_id, headers_on_closed_stream, data_on_closed_stream,
                                 headers_on_half_closed_stream, h2spec_half_closed, headers_after_client_reset, data_after_server_reset,
                                 data_after_refused_stream, after_goaway_window_update, after_goaway_data,
                                 after_goaway_rst_stream)}

if __name__ == "__main__":
    failed = []
    for name in sys.argv[2].split(","):
        try:
            CASES[name]()
            print("ok: " + name, flush=True)
        except Exception as e:  # report every case, then fail
            failed.append(name)
            print("FAILED: %s: %s" % (name, e), flush=True)
    sys.exit(1 if failed else 0)
