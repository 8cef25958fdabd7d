"""A raw-frame HTTP/2 client (the h2 package) for Http2Test: normal use and the attacks a server must refuse.

usage: h2_client.py PORT CASE...   (cleartext, prior knowledge; apxtest.tls_apps:app on the server)
       H2_CA=ca.pem h2_client.py ...  (TLS with ALPN h2, trusting that CA)
Prints "ok: CASE" per case that behaved; any failure raises (exit 1) with what was seen instead.
After each attack a fresh connection must still be served: other clients are not harmed.
"""
import os
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
import hpack
from hyperframe.frame import ContinuationFrame, HeadersFrame, PingFrame, RstStreamFrame, SettingsFrame, WindowUpdateFrame

PORT = int(sys.argv[1])
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


class Client:
    def __init__(self, settings=None, auto_ack=True):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=30)
        if os.environ.get("H2_CA"):
            context = ssl.create_default_context(cafile=os.environ["H2_CA"])
            context.set_alpn_protocols(["h2"])
            self.sock = context.wrap_socket(self.sock, server_hostname="127.0.0.1")
            if self.sock.selected_alpn_protocol() != "h2":
                raise AssertionError("ALPN chose %r, not h2" % self.sock.selected_alpn_protocol())
        config = h2.config.H2Configuration(client_side=True, header_encoding="latin-1")
        self.h2 = h2.connection.H2Connection(config=config)
        self.h2.initiate_connection()
        if settings:
            self.h2.update_settings(settings)
        self.flush()
        self.auto_ack = auto_ack
        self.keep_bodies = True  # False: count body bytes only (a 100 MiB body, received piece by piece)
        self.responses = {}  # stream id -> dict(status, headers, body, trailers, ended, reset)
        self.terminated = None  # the GOAWAY's error code, once one came
        self.closed = False
        self.remote_settings = {}

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, method, path, body=b"", trailers=None, headers=(), end=True):
        stream = self.h2.get_next_available_stream_id()
        self.responses[stream] = {"status": None, "headers": [], "body": b"", "size": 0, "trailers": [], "ended": False, "reset": None}
        self.h2.send_headers(stream, [(":method", method), (":path", path), (":scheme", "http"),
                                      (":authority", "127.0.0.1:%d" % PORT), *headers],
                             end_stream=not body and not trailers and end)
        self.flush()
        sent = 0
        while sent < len(body):
            window = min(self.h2.local_flow_control_window(stream), self.h2.max_outbound_frame_size)
            if window <= 0:
                self.read_once()
                continue
            piece = body[sent:sent + window]
            sent += len(piece)
            self.h2.send_data(stream, piece, end_stream=sent == len(body) and not trailers and end)
            self.flush()
        if trailers:
            self.h2.send_headers(stream, trailers, end_stream=True)
            self.flush()
        return stream

    def read_once(self, timeout=30):
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            data = b""
        if not data:
            self.closed = True
            return
        for event in self.h2.receive_data(data):
            self.on(event)
        self.flush()

    def on(self, event):
        response = self.responses.get(getattr(event, "stream_id", None))
        if isinstance(event, h2.events.ResponseReceived):
            response["headers"] = event.headers
            response["status"] = dict(event.headers)[":status"]
        elif isinstance(event, h2.events.DataReceived):
            response["size"] += len(event.data)
            if self.keep_bodies:
                response["body"] += event.data
            if self.auto_ack:
                self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.TrailersReceived):
            response["trailers"] = event.headers
        elif isinstance(event, h2.events.StreamEnded):
            response["ended"] = True
        elif isinstance(event, h2.events.StreamReset):
            if response is not None:
                response["reset"] = event.error_code
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.terminated = event.error_code
        elif isinstance(event, h2.events.RemoteSettingsChanged):
            for code, change in event.changed_settings.items():
                self.remote_settings[int(code)] = change.new_value

    def until(self, done, timeout=30, what="a response"):
        deadline = time.monotonic() + timeout
        while not done():
            if self.closed or time.monotonic() > deadline:
                raise AssertionError("gave up waiting for %s (closed=%s, goaway=%s)" % (what, self.closed, self.terminated))
            self.read_once(max(0.01, deadline - time.monotonic()))

    def response(self, stream, timeout=30):
        self.until(lambda: self.responses[stream]["ended"] or self.responses[stream]["reset"] is not None, timeout,
                   "stream %d" % stream)
        return self.responses[stream]

    def get(self, path):
        return self.response(self.request("GET", path))

    def close(self):
        self.sock.close()


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def healthy():
    """A new client is served after an attack on another connection."""
    client = Client()
    response = client.get("/events")
    client.close()
    check(response["status"] == "200", "a fresh client after the attack got %r" % response)


def read_to_close(client, timeout=30):
    """After raw frames that bypassed h2's state: reads bytes until the server closes. Whatever the server
    answered first (a response to a stream the flood opened, a reset) must not end the wait, as h2 would
    take it for a broken peer: only the server's close shows that it refused the connection."""
    client.sock.settimeout(timeout)
    deadline = time.monotonic() + timeout
    try:
        while client.sock.recv(65536):
            check(time.monotonic() < deadline, "the server kept the connection open")
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError("the server kept the connection open")


def closed_or_goaway(client, timeout=30):
    """Reads until the server ends the connection (a GOAWAY, or the socket closing)."""
    deadline = time.monotonic() + timeout
    while not client.closed and client.terminated is None:
        check(time.monotonic() < deadline, "the server kept the connection open")
        try:
            client.read_once(max(0.01, deadline - time.monotonic()))
        except (h2.exceptions.ProtocolError, OSError):
            return  # the server's answer broke h2's state machine or the socket: the connection is over either way


# ---- normal use


def basics():
    client = Client()
    scope = client.get("/scope?x=1")
    check(scope["status"] == "200", scope)
    body = scope["body"].decode()
    check('"http_version": "2"' in body and '"scheme": "http"' in body, body)
    check('["host", "127.0.0.1:%d"]' % PORT in body and ':authority' not in body and ':path' not in body, body)
    check('"query_string": "x=1"' in body, body)

    upload = client.response(client.request("POST", "/upload", body=b"u" * 300_000))
    check(upload["body"] == b"300000", upload)
    with_trailers = client.response(client.request("POST", "/upload", body=b"abc", trailers=[("x-digest", "1")]))
    check(with_trailers["body"] == b"3", "request trailers: %r" % with_trailers)

    trailers = client.get("/trailers")
    check(trailers["body"] == b"body then trailers" and ("x-checksum", "abc123") in trailers["trailers"], trailers)
    with open(sys.argv[3] if len(sys.argv) > 3 else "/dev/null", "rb") as f:
        expected = f.read()
    file = client.get("/file")
    check(file["status"] == "200" and (not expected or file["body"] == expected), file)
    head = client.response(client.request("HEAD", "/scope"))
    check(head["status"] == "200" and head["body"] == b"", head)
    too_many = client.response(client.request("GET", "/scope", headers=[("x-h%d" % i, "v") for i in range(101)]))
    check(too_many["status"] == "431", "101 header fields (--limit-request-fields 100) per stream: %r" % too_many)
    check(client.get("/events")["status"] == "200", "the connection carries on after a refused stream")
    client.close()


def reset():
    """RST_STREAM: the app hears http.disconnect; other streams of the connection carry on."""
    client = Client()
    before = int(client.get("/events")["body"].decode().split('"disconnects": ')[1].rstrip("}"))
    stream = client.request("GET", "/wait-for-disconnect")
    time.sleep(0.3)
    client.h2.reset_stream(stream, h2.errors.ErrorCodes.CANCEL)
    client.flush()
    deadline = time.monotonic() + 10
    while True:
        now = int(client.get("/events")["body"].decode().split('"disconnects": ')[1].rstrip("}"))
        if now == before + 1:
            break
        check(time.monotonic() < deadline, "the app never saw the disconnect (%d -> %d)" % (before, now))
        time.sleep(0.1)
    client.close()


def flow():
    """A client that stops reading holds the app's send() back: bytes sent stay near the window."""
    size = 4 * 1024 * 1024
    client = Client(auto_ack=False)
    stream = client.request("GET", "/stream?%d" % size)
    client.until(lambda: len(client.responses[stream]["body"]) >= 65535 - 16384, what="the first window")
    time.sleep(1.0)
    probe = Client()
    sent = int(probe.get("/events")["body"].decode().split('"sent": ')[1].split(",")[0])
    probe.close()
    check(sent < 1024 * 1024, "the app sent %d bytes to a client that read 64 KiB" % sent)
    client.auto_ack = True
    got = len(client.responses[stream]["body"])
    client.h2.acknowledge_received_data(got, stream)
    client.h2.increment_flow_control_window(size)  # and open wide: the rest comes at the server's pace
    client.h2.increment_flow_control_window(size, stream)
    client.flush()
    client.response(stream, timeout=120)
    check(len(client.responses[stream]["body"]) == size, "got %d of %d" % (len(client.responses[stream]["body"]), size))
    client.close()
    print("info: sent %d bytes while the client held the window closed" % sent)


def slow_reader():
    """100 MiB to a client that reads slowly: 256 KiB windows (stream and connection, 1/400 of the body),
    opened again only at the client's pace (half a window at a time, a pause per MiB). At every probe,
    what the app's send() has let through minus what the client has received, the bytes the server holds
    for this stream, stays within the window however far into the 100 MiB: memory is bounded by the
    window, not by the body. The arithmetic: send() lets a chunk (64 KiB) through only while the window
    has room, so sent <= acked + window + 64 KiB; a probe comes once received >= acked + window / 2: at
    most window / 2 + 64 KiB = 192 KiB held. A server that queued what the app sends would hold megabytes."""
    size, window = 100 * 1024 * 1024, 262144
    step, pause = 1024 * 1024, 0.01
    client = Client(settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window}, auto_ack=False)
    client.h2.increment_flow_control_window(window - 65535)
    client.keep_bodies = False
    probe = Client()
    stream = client.request("GET", "/stream?%d" % size)
    response = client.responses[stream]
    acked = worst = probes = 0
    start = time.monotonic()
    while not response["ended"]:
        check(response["reset"] is None and not client.closed and time.monotonic() - start < 120, "stream ended early: %r" % response)
        client.read_once()
        unacked = response["size"] - acked
        if unacked >= window // 2 or response["ended"]:
            if response["size"] // step != acked // step:
                time.sleep(pause)
                sent = int(probe.get("/events")["body"].decode().split('"sent": ')[1].split(",")[0])
                worst = max(worst, sent - response["size"])
                probes += 1
            client.h2.acknowledge_received_data(unacked, stream)
            client.flush()
            acked = response["size"]
    seconds = time.monotonic() - start
    probe.close()
    client.close()
    check(response["size"] == size, "got %d of %d" % (response["size"], size))
    check(probes >= 99, "only %d probes" % probes)
    check(worst <= window, "the server held up to %d bytes for a client that had read less" % worst)
    print("info: 100 MiB in %.1f s to a paced client with a %d-byte window; the server held at most %d bytes ahead of it (%d probes)"
          % (seconds, window, worst, probes))


def settings():
    client = Client()
    client.get("/events")
    print("settings: " + " ".join("%d=%d" % item for item in sorted(client.remote_settings.items())))
    client.close()


# ---- attacks


def invalid_paths():
    """:path values HTTP/1.1 refuses in its request line get the same 400, and never reach the app."""
    client = Client()
    client.h2.config.validate_outbound_headers = False  # h2 would not send them
    client.h2.config.normalize_outbound_headers = False
    statuses = []
    for path in (b"echo", b"/echo?q=a b", "/café".encode(), b"/a\tb", b"/echo#frag"):
        statuses.append(client.response(client.request("GET", path))["status"])
    check(statuses == ["400"] * 5, "statuses %r" % statuses)
    check(client.get("/events")["status"] == "200", "a valid :path on the same connection")
    client.close()


def rapid_reset():
    """CVE-2023-44487: streams opened and reset at once, thousands of them."""
    client = Client()
    encoder = hpack.Encoder()
    frames = bytearray()
    for i in range(5000):
        stream = 1 + 2 * i
        block = encoder.encode([(":method", "GET"), (":path", "/events"), (":scheme", "http"), (":authority", "x")])
        frames += HeadersFrame(stream, data=block, flags=["END_HEADERS", "END_STREAM"]).serialize()
        frames += RstStreamFrame(stream, error_code=8).serialize()
    try:
        client.sock.sendall(bytes(frames))
    except OSError:
        pass  # closed on us mid-flood: refused
    read_to_close(client)
    client.close()


def made_you_reset():
    """CVE-2025-55163 ("MadeYouReset"): frames that make the server reset stream after stream (here
    WINDOW_UPDATE with a zero increment on an open stream), a thousand of them: the server closes."""
    client = Client()
    encoder = hpack.Encoder()
    frames = bytearray()
    for i in range(1000):
        stream = 1 + 2 * i
        block = encoder.encode([(":method", "POST"), (":path", "/upload"), (":scheme", "http"), (":authority", "x")])
        frames += HeadersFrame(stream, data=block, flags=["END_HEADERS"]).serialize()
        frames += WindowUpdateFrame(stream, window_increment=0).serialize()
    try:
        client.sock.sendall(bytes(frames))
    except OSError:
        pass  # closed on us mid-flood: refused
    read_to_close(client)
    client.close()


def continuation_flood():
    """CVE-2024-27316 kin: one HEADERS then CONTINUATION frames without end."""
    client = Client()
    encoder = hpack.Encoder()
    block = encoder.encode([(":method", "GET"), (":path", "/events"), (":scheme", "http"), (":authority", "x")])
    frames = bytearray(HeadersFrame(1, data=block).serialize())
    for _ in range(100_000):
        frames += ContinuationFrame(1, data=b"").serialize()
    try:
        client.sock.sendall(bytes(frames))
    except OSError:
        pass
    closed_or_goaway(client)
    client.close()


def hpack_bomb():
    """A big header put in the dynamic table once, then referenced thousands of times (a tiny block that decodes huge)."""
    client = Client()
    encoder = hpack.Encoder()
    first = encoder.encode([(":method", "GET"), (":path", "/events"), (":scheme", "http"), (":authority", "x"),
                            ("x-bomb", "b" * 4000)])
    index = encoder.encode([("x-bomb", "b" * 4000)])  # one byte: the dynamic table entry
    block = first + index * 2000  # ~8 MB decoded
    frames = HeadersFrame(1, data=block[:16384], flags=[] if len(block) > 16384 else ["END_HEADERS", "END_STREAM"]).serialize()
    rest = block[16384:]
    while rest:
        piece, rest = rest[:16384], rest[16384:]
        frames += ContinuationFrame(1, data=piece, flags=[] if rest else ["END_HEADERS"]).serialize()
    client.sock.sendall(frames)
    deadline = time.monotonic() + 30
    while not client.closed and client.terminated is None:
        check(time.monotonic() < deadline, "no refusal of the HPACK bomb")
        try:
            client.read_once(1)
        except (h2.exceptions.ProtocolError, OSError):
            break
        except socket.timeout:
            pass
        response = client.responses.get(1)
        if response and (response["reset"] is not None or response["status"] == "431"):
            break
    client.close()


def control_flood(frame):
    """SETTINGS or PING frames sent without reading their ACKs: the server must not queue them without bound."""
    client = Client()
    burst = frame.serialize() * 10_000
    client.sock.settimeout(30)
    try:
        for _ in range(100):
            client.sock.sendall(burst)
    except OSError:
        pass  # the server closed the connection: refused
    else:
        closed_or_goaway(client)
    client.close()


def settings_flood():
    control_flood(SettingsFrame(0, settings={}))


def ping_flood():
    control_flood(PingFrame(0, opaque_data=b"12345678"))


def stream_limit():
    """One stream past SETTINGS_MAX_CONCURRENT_STREAMS is refused; the others are served."""
    client = Client()
    client.get("/events")  # the server's SETTINGS are in
    limit = client.h2.remote_settings.max_concurrent_streams
    encoder = hpack.Encoder()
    frames = bytearray()
    streams = [1 + 2 * i for i in range(3, 3 + limit + 1)]
    for stream in streams:
        block = encoder.encode([(":method", "GET"), (":path", "/slow"), (":scheme", "http"), (":authority", "x")])
        frames += HeadersFrame(stream, data=block, flags=["END_HEADERS", "END_STREAM"]).serialize()
    raw = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    raw.sendall(PREFACE + SettingsFrame(0).serialize() + bytes(frames))
    # read frames: expect RST_STREAM(REFUSED_STREAM=7) for the last stream, HEADERS 200 for the others
    decoder_client = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))  # parses frames only
    refused, ok = set(), set()
    buffer = b""
    deadline = time.monotonic() + 30
    from hyperframe.frame import Frame
    while len(refused) + len(ok) < len(streams):
        check(time.monotonic() < deadline, "refused=%s ok=%d of %d" % (refused, len(ok), len(streams)))
        data = raw.recv(65536)
        check(data, "connection closed: refused=%s ok=%d" % (refused, len(ok)))
        buffer += data
        while len(buffer) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(buffer[:9]))
            if len(buffer) < 9 + length:
                break
            frame.parse_body(memoryview(buffer[9:9 + length]))
            buffer = buffer[9 + length:]
            if isinstance(frame, RstStreamFrame):
                check(frame.error_code == 7, "reset with %d" % frame.error_code)
                refused.add(frame.stream_id)
            elif isinstance(frame, HeadersFrame) and frame.stream_id in streams:
                ok.add(frame.stream_id)
    check(refused == {streams[-1]} and len(ok) == limit, "refused=%s ok=%d limit=%d" % (refused, len(ok), limit))
    raw.close()
    client.close()
    del decoder_client


def zero_window():
    """A client that opens a stream with a zero window and never grows it: reset after --timeout-write."""
    client = Client(settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0})
    stream = client.request("GET", "/stream?1048576")  # the server reads the SETTINGS before this HEADERS
    response = client.response(stream, timeout=30)
    check(response["reset"] is not None and len(response["body"]) == 0, "zero-window stream: %r" % {**response, "body": len(response["body"])})
    client.close()


CASES = {name: function for name, function in globals().items() if callable(function) and not name.startswith("_")}

if __name__ == "__main__":
    for case in sys.argv[2].split(","):
        CASES[case]()
        if case not in ("basics", "settings"):
            healthy()
        print("ok: " + case, flush=True)
