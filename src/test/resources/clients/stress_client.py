"""Load on apxtest.stress_app for RuntimesStressIT: HTTP/1.1 keep-alive and h2 (prior knowledge)
with httpx, WebSocket echo sessions with websockets, all at once; then SIGTERM to the server while
the load runs, and what every client saw through the drain.

usage: stress_client.py PORT SERVER_PID SECONDS RUNTIMES [CA_FILE]

With CA_FILE the server is a TLS one (its certificate signed by that CA) and everything goes over TLS:
h2 through ALPN, HTTP/1.1 over TLS, wss; every HTTP response must then carry the app's x-tls header
(the tls_version of the scope's TLS extension) and is counted also as KIND_tls; without, none may.

1. Opens, one at a time (so the server's least-connections spread gives each runtime its share of
   every kind): RUNTIMES*2 WebSocket sessions, RUNTIMES*2 HTTP/1.1 connections (one httpx client of
   one connection each), RUNTIMES h2 connections (4 concurrent streams each).
2. For SECONDS every one of them loops: echoes of random bodies (sent whole, or streamed: chunked
   on HTTP/1.1, several DATA frames on h2), streamed responses, GET /runtime; WebSocket messages of
   random text and bytes. Every body is checked, and every response's x-runtime must be the one its
   connection started on (a connection never moves).
3. Stops the h2 streams (see main), opens more HTTP/1.1 connections and more h2 connections (the
   h2 package, which drains past a GOAWAY) until every runtime has one of each, each with a slow response (half of its
   body at once, the rest 2.5 s later), waits until each has its first half, stops starting new
   requests and sends SIGTERM. Whatever the app had started must finish, every byte (the app's own
   count of started requests must equal the responses counted "ok" here); an HTTP/1.1 request that
   the server closed unanswered at SIGTERM is counted "refused_at_shutdown" (the server had not read
   it: the keep-alive race every server has); each WebSocket must be closed with 1012.

Prints at the end one line per figure:
"count RUNTIME KIND N", "slow RUNTIME" (per slow response), "error TEXT" (the first 20), "stat NAME N".
"""
import asyncio
import os
import random
import signal
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

PORT, SERVER_PID, SECONDS, RUNTIMES = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
CA_FILE = sys.argv[5] if len(sys.argv) > 5 else None
BASE = ("https" if CA_FILE else "http") + "://127.0.0.1:%d" % PORT
SLOW_MS = 2500

T0 = time.monotonic()
errors = []
per_runtime = {}  # runtime id -> counts by kind
stopping = asyncio.Event()
in_flight = 0
in_flight_at_sigterm = 0


def count(runtime, kind, n=1):
    counts = per_runtime.setdefault(runtime, {})
    counts[kind] = counts.get(kind, 0) + n


def body_of(seed, size):
    unit = (seed + ":").encode()
    return (unit * (size // len(unit) + 1))[:size]


def fail(what):
    errors.append(what)


def tls_context(alpn):
    """A client context trusting CA_FILE; one per client (httpcore sets its ALPN list on the context it is given)."""
    context = ssl.create_default_context(cafile=CA_FILE)
    context.set_alpn_protocols(alpn)
    return context


def httpx_client(**options):
    if CA_FILE:
        options["verify"] = tls_context(["h2"] if options.get("http2") else ["http/1.1"])
    return httpx.AsyncClient(base_url=BASE, **options)


def tls_mismatch(tls):
    """Why the x-tls header (None when absent) is wrong for this run, or None."""
    if CA_FILE and tls is None:
        return "no x-tls over TLS: the app's scope had no TLS extension"
    if not CA_FILE and tls is not None:
        return "x-tls %s in cleartext" % tls
    return None


def count_response(runtime, kind, tls):
    count(runtime, kind)
    if tls is not None:
        count(runtime, kind + "_tls")


def closed_unanswered(error):
    """The connection ended before any byte of the response came."""
    return isinstance(error, (httpx.ReadError, httpx.WriteError)) or (
        isinstance(error, httpx.RemoteProtocolError) and "without sending a response" in str(error))


async def http_worker(name, client, version, rng, stop, runtime):
    """Requests on one client (one connection, on runtime) until stop is set."""
    n = 0
    global in_flight
    while not stop.is_set():
        n += 1
        kind = rng.choice(("echo", "echo_streamed", "stream", "runtime"))
        seed = "%s-%d" % (name, n)
        in_flight += 1
        try:
            if kind == "echo":
                expected = rng.randbytes(rng.choice((0, 1, 100, 4096, 65536 if version == "HTTP/1.1" else 8192)))
                response = await client.post("/echo", content=expected)
            elif kind == "echo_streamed":
                # on h2 at most 8 KiB a request: 4 streams of it fit in one connection window, so httpx never
                # waits for window (its concurrent uploads deadlock there: pydantic/httpx2#1133, seen here too)
                parts = [rng.randbytes(rng.randint(1, 16384 if version == "HTTP/1.1" else 2048)) for _ in range(rng.randint(1, 4))]
                expected = b"".join(parts)

                async def pieces(parts=parts):
                    for part in parts:
                        yield part
                        await asyncio.sleep(0)

                response = await client.post("/echo", content=pieces())
            elif kind == "stream":
                chunks, size = rng.randint(1, 8), rng.choice((1, 512, 8192))
                expected = b"".join(body_of("%s.%d" % (seed, i), size) for i in range(chunks))
                response = await client.get("/stream", params={"seed": seed, "chunks": chunks, "size": size})
            else:
                response = await client.get("/runtime")
                expected = response.headers.get("x-runtime", "?").encode()
        except Exception as e:
            if stopping.is_set() and version == "HTTP/1.1" and closed_unanswered(e):
                # the server closed the connection at SIGTERM before it read this request (HTTP/1.1's keep-alive
                # race, as at every server's graceful shutdown); the app's own count shows it never started
                count(runtime, "refused_at_shutdown")
            else:
                fail("%s %s (runtime %s) request %d (%s) at %.2f s: %r" % (version, name, runtime, n, kind, time.monotonic() - T0, e))
            return
        finally:
            in_flight -= 1
        got = response.headers.get("x-runtime")
        tls = response.headers.get("x-tls")
        if response.status_code != 200 or response.content != expected:
            fail("%s %s request %d (%s): status %d, %d bytes, expected %d" % (
                version, name, n, kind, response.status_code, len(response.content), len(expected)))
        elif response.http_version != version:
            fail("%s %s: served over %s" % (version, name, response.http_version))
        elif got != runtime:
            fail("%s %s: its connection moved from runtime %s to %s" % (version, name, runtime, got))
        elif tls_mismatch(tls):
            fail("%s %s request %d (runtime %s): %s" % (version, name, n, runtime, tls_mismatch(tls)))
        else:
            count(got, "ok")
            count_response(got, "http/1.1" if version == "HTTP/1.1" else "h2", tls)


async def websocket_worker(name, rng):
    """One WebSocket session: echoes until stopping, then waits for the server's close."""
    try:
        async with connect(BASE.replace("http", "ws") + "/ws", max_size=None, open_timeout=30,
                           **({"ssl": tls_context(["http/1.1"])} if CA_FILE else {})) as ws:
            runtime = await ws.recv()
            count(runtime, "ws_sessions")
            while not stopping.is_set():
                message = rng.randbytes(rng.randint(0, 16384)) if rng.random() < 0.5 else "é%d" % rng.randint(0, 10 ** rng.randint(1, 300))
                await ws.send(message)
                try:
                    echo = await ws.recv()
                except ConnectionClosed as closed:
                    if stopping.is_set() and closed.rcvd is not None and closed.rcvd.code == 1012:
                        count(runtime, "ws_echo_cut_by_shutdown")  # the server's 1012 overtook the echo: Uvicorn's shutdown too
                        break
                    raise
                if echo != message:
                    fail("ws %s: echo differs (%r... for %r...)" % (name, echo[:20], message[:20]))
                    return
                count(runtime, "ws_messages")
            try:
                await asyncio.wait_for(ws.recv(), 30)
                fail("ws %s: a message after the load stopped" % name)
            except ConnectionClosed:
                pass
            code = ws.close_code
            if code != 1012:
                fail("ws %s: closed with %s, not 1012 (service restart)" % (name, code))
            else:
                count(runtime, "ws_closed_1012")
    except Exception as e:
        fail("ws %s: %r" % (name, e))


async def slow_request(name, first_half):
    """One slow response on a new HTTP/1.1 connection; reports its first half, then reads the rest."""
    size = 4096
    async with httpx_client(timeout=60) as client:
        try:
            async with client.stream("GET", "/slow", params={"seed": name, "ms": SLOW_MS, "size": size}) as response:
                runtime = response.headers.get("x-runtime")
                tls = response.headers.get("x-tls")
                received = b""
                async for chunk in response.aiter_raw():
                    if not first_half.done():
                        first_half.set_result(runtime)
                    received += chunk
            if response.status_code != 200 or received != body_of(name + ".0", size) + body_of(name + ".1", size):
                fail("slow %s: status %d, %d bytes" % (name, response.status_code, len(received)))
            elif tls_mismatch(tls):
                fail("slow %s: %s" % (name, tls_mismatch(tls)))
            else:
                count(runtime, "ok")
                count_response(runtime, ("slow_drained_" if stopping.is_set() else "slow_done_before_sigterm_") + "http/1.1", tls)
        except Exception as e:
            fail("slow %s: %r" % (name, e))
        finally:
            if not first_half.done():
                first_half.set_result(None)


async def slow_h2_request(name, first_half):
    """One slow response on a new h2 connection (prior knowledge, or ALPN over TLS), with the h2 package itself.

    httpx gives up every stream at a GOAWAY, and h2 refuses any frame after one, so neither can see a
    graceful drain (RFC 9113 6.8: streams up to the GOAWAY's last stream id go on). So the GOAWAY is
    taken out of what h2 reads, and its last stream id checked here.
    """
    size = 4096
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT, **({"ssl": tls_context(["h2"])} if CA_FILE else {}))
    if CA_FILE and writer.get_extra_info("ssl_object").selected_alpn_protocol() != "h2":
        fail("slow %s: ALPN chose %r, not h2" % (name, writer.get_extra_info("ssl_object").selected_alpn_protocol()))
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="latin-1"))
    connection.initiate_connection()
    stream = connection.get_next_available_stream_id()
    connection.send_headers(stream, [(":method", "GET"), (":scheme", "https" if CA_FILE else "http"), (":authority", "127.0.0.1:%d" % PORT),
                                     (":path", "/slow?seed=%s&ms=%d&size=%d" % (name, SLOW_MS, size))], end_stream=True)
    writer.write(connection.data_to_send())
    runtime, tls, status, received, ended, goaway, pending = None, None, None, b"", False, None, b""
    try:
        while not ended:
            data = await asyncio.wait_for(reader.read(65536), 60)
            if not data:
                raise ConnectionError("closed before the stream ended")
            pending += data
            frames, pending, last_stream = without_goaway(pending)
            goaway = last_stream if last_stream is not None else goaway
            for event in connection.receive_data(frames):
                if isinstance(event, h2.events.ResponseReceived):
                    headers = dict(event.headers)
                    status, runtime, tls = int(headers[":status"]), headers.get("x-runtime"), headers.get("x-tls")
                elif isinstance(event, h2.events.DataReceived):
                    received += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    if not first_half.done():
                        first_half.set_result(runtime)
                elif isinstance(event, h2.events.StreamEnded):
                    ended = True
                elif isinstance(event, h2.events.StreamReset):
                    raise ConnectionError("stream reset: %r" % event)
            writer.write(connection.data_to_send())
        if status != 200 or received != body_of(name + ".0", size) + body_of(name + ".1", size):
            fail("slow %s: status %s, %d bytes" % (name, status, len(received)))
        elif goaway is not None and goaway < stream:
            fail("slow %s: stream %d finished past the GOAWAY's last stream %d" % (name, stream, goaway))
        elif tls_mismatch(tls):
            fail("slow %s (h2): %s" % (name, tls_mismatch(tls)))
        else:
            count(runtime, "ok")
            count_response(runtime, ("slow_drained_" if stopping.is_set() else "slow_done_before_sigterm_") + "h2", tls)
    except Exception as e:
        fail("slow %s (h2, runtime %s, GOAWAY last stream %s): %r" % (name, runtime, goaway, e))
    finally:
        if not first_half.done():
            first_half.set_result(None)
        writer.close()


def without_goaway(data):
    """(the whole frames of data but GOAWAY, the bytes of a frame not yet whole, the GOAWAY's last stream id or None)."""
    kept, at, last_stream = bytearray(), 0, None
    while len(data) - at >= 9:
        length = int.from_bytes(data[at:at + 3], "big")
        if len(data) - at < 9 + length:
            break
        frame = data[at:at + 9 + length]
        if frame[3] == 0x7:  # GOAWAY
            last_stream = int.from_bytes(frame[9:13], "big") & 0x7FFFFFFF
        else:
            kept += frame
        at += 9 + length
    return bytes(kept), data[at:], last_stream


async def main():
    global in_flight_at_sigterm
    timeout = httpx.Timeout(60)
    websockets = []
    for i in range(2 * RUNTIMES):
        websockets.append(asyncio.create_task(websocket_worker("ws%d" % i, random.Random(i))))
        while sum(c.get("ws_sessions", 0) for c in per_runtime.values()) < i + 1 and not errors:
            await asyncio.sleep(0.01)  # one at a time: the spread is by open connections
    clients, workers, h2_workers = [], [], []
    # httpx's h2 streams stop before SIGTERM: httpx gives up its streams in flight at a GOAWAY (see
    # slow_h2_request); and a stream whose HEADERS cross the GOAWAY, with the WINDOW_UPDATE httpx sends
    # with each, makes Netty close the whole connection (docs/interpreters.md, "Proof")
    h2_stop = asyncio.Event()
    for i in range(2 * RUNTIMES):
        client = httpx_client(timeout=timeout, limits=httpx.Limits(max_connections=1))
        warm = await client.get("/runtime")  # opens its connection now
        count(warm.headers["x-runtime"], "ok")
        clients.append(client)
        workers.append(asyncio.create_task(http_worker("h1-%d" % i, client, "HTTP/1.1", random.Random(100 + i), stopping,
                                                       warm.headers["x-runtime"])))
    for i in range(RUNTIMES):
        client = httpx_client(timeout=timeout, http1=False, http2=True)
        warm = await client.get("/runtime")
        count(warm.headers["x-runtime"], "ok")
        clients.append(client)
        for s in range(4):
            h2_workers.append(asyncio.create_task(http_worker("h2-%d.%d" % (i, s), client, "HTTP/2", random.Random(200 + 4 * i + s), h2_stop,
                                                              warm.headers["x-runtime"])))
    started = time.monotonic()
    await asyncio.sleep(SECONDS)
    h2_stop.set()
    await asyncio.gather(*h2_workers)
    halves = []
    slow = []
    for kind, request in (("http/1.1", slow_request), ("h2", slow_h2_request)):
        # new connections one at a time (each goes to the runtime with the fewest), until every runtime has one
        covered = set()
        for i in range(4 * RUNTIMES):
            if len(covered) == RUNTIMES:
                break
            half = asyncio.get_running_loop().create_future()
            halves.append(half)
            slow.append(asyncio.create_task(request("slow-%s-%d" % (kind.replace("/", ""), i), half)))
            covered.add(await half)
    stopping.set()
    in_flight_at_sigterm = in_flight
    os.kill(SERVER_PID, signal.SIGTERM)
    sigterm = time.monotonic()
    await asyncio.gather(*workers, *h2_workers, *websockets, *slow)
    drained = time.monotonic() - sigterm
    for client in clients:
        await client.aclose()
    for runtime, counts in per_runtime.items():
        for kind, n in counts.items():
            print("count", runtime, kind, n)
    for half in halves:
        print("slow", half.result())
    for error in errors[:20]:
        print("error", error.replace("\n", " "))
    print("stat errors", len(errors))
    print("stat tls", 1 if CA_FILE else 0)
    print("stat in_flight_at_sigterm", in_flight_at_sigterm)
    print("stat load_ms", round(1000 * (sigterm - started)))
    print("stat sigterm_at_ms", round(1000 * (sigterm - T0)))
    print("stat drain_ms", round(1000 * drained))

asyncio.run(main())
