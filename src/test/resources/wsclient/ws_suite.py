"""The WebSocket checks, run against one server serving apxtest.ws_apps (or ws_frameworks).

    python ws_suite.py HOST:PORT [CHECK...]    (no CHECK: all of CHECKS; the others by name)
    python ws_suite.py HOST:PORT musts         (RFC 6455's MUSTs: each result against MUSTS, then "kept N of M")

Prints one line per check: its name, a space, its result as JSON. Each check returns what a
client observes (echoed data, close codes, HTTP status...) and, where the app saw something a
client cannot, what /seen reports. The same output from apx and from
Uvicorn is compared by the differential test. The server must run with --ws-max-size 2097152
--ws-ping-interval 1 --ws-ping-timeout 1. Raw-socket checks build frames by hand (RFC 6455 5.2).
"""
import asyncio
import base64
import json
import os
import struct
import sys
import urllib.request

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

ADDRESS = sys.argv[1]
URL = "ws://" + ADDRESS


def seen(ident):
    with urllib.request.urlopen(f"http://{ADDRESS}/seen?{ident}", timeout=10) as response:
        return json.loads(response.read())


async def seen_soon(ident):
    for _ in range(100):
        found = await asyncio.to_thread(seen, ident)
        if found is not None:
            return found
        await asyncio.sleep(0.05)
    return None


# ---- raw frames

def frame(opcode, payload, fin=True, mask=True, rsv=0):
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    length = len(payload)
    bit = 0x80 if mask else 0
    if length < 126:
        head += bytes([bit | length])
    elif length < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", length)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", length)
    if not mask:
        return head + payload
    if length > 4096:  # a zero key masks nothing: large payloads go out at once
        return head + b"\0\0\0\0" + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


async def raw_connect(path):
    host, port = ADDRESS.rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET {path} HTTP/1.1\r\nHost: {ADDRESS}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    status = await reader.readuntil(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 101"), status
    return reader, writer


async def read_frame(reader):
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    return first & 0x0F, await reader.readexactly(length)


async def read_until_close(reader):
    """Frames up to the close frame: (opcodes seen, close code or None at EOF)."""
    opcodes = []
    try:
        while True:
            opcode, payload = await read_frame(reader)
            if opcode == 8:
                return opcodes, struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
            opcodes.append(opcode)
    except asyncio.IncompleteReadError:
        return opcodes, None


# ---- checks

async def echo_text():
    async with connect(URL + "/echo?echo_text") as ws:
        await ws.send("héllo wörld")
        return await ws.recv()


async def echo_bytes():
    async with connect(URL + "/echo?echo_bytes") as ws:
        await ws.send(bytes(range(256)))
        return list(await ws.recv()) == list(range(256))


async def one_mib():
    async with connect(URL + "/echo?one_mib", max_size=None) as ws:
        data = os.urandom(1 << 20)
        await ws.send(data)
        text = "é" * (1 << 19)  # 1 MiB of UTF-8
        await ws.send(text)
        return [await ws.recv() == data, await ws.recv() == text]


async def no_deflate():
    async with connect(URL + "/echo?no_deflate", compression=None) as ws:
        await ws.send("plain")
        return [await ws.recv(), ws.response.headers.get("sec-websocket-extensions")]


async def deflate():
    async with connect(URL + "/echo?deflate") as ws:
        await ws.send("z" * 100_000)
        return [len(await ws.recv()), ws.response.headers.get("sec-websocket-extensions", "").split(";")[0]]


async def subprotocol():
    async with connect(URL + "/echo?sub1", subprotocols=["nope", "chat"]) as chosen:
        first = chosen.subprotocol
    async with connect(URL + "/echo?sub2") as none:
        second = none.subprotocol
    return [first, second]


async def accept_headers():
    async with connect(URL + "/echo?hdr") as ws:
        return ws.response.headers.get("x-echo")


async def scope():
    async with connect(URL + "/scope?a=1", subprotocols=["one", "two"]) as ws:
        fields = json.loads(await ws.recv())
        fields["subprotocol"] = ws.subprotocol
        return fields


async def server_close():
    async with connect(URL + "/close-code?server_close") as ws:
        await ws.send("go")
        try:
            await ws.recv()
        except ConnectionClosed as closed:
            return [closed.rcvd.code, closed.rcvd.reason, (await seen_soon("server_close"))]


async def client_close():
    ws = await connect(URL + "/echo?client_close")
    await ws.close(4000, "done")
    return [ws.close_code, await seen_soon("client_close")]


async def tcp_drop():
    reader, writer = await raw_connect("/echo?tcp_drop")
    writer.transport.abort()
    return await seen_soon("tcp_drop")


async def deny():
    try:
        async with connect(URL + "/deny"):
            return "accepted"
    except InvalidStatus as refused:
        return refused.response.status_code


async def deny_response():
    try:
        async with connect(URL + "/deny-response"):
            return "accepted"
    except InvalidStatus as refused:
        response = refused.response
        return [response.status_code, response.headers.get("x-why"), response.body.decode()]


async def raise_before_accept():
    try:
        async with connect(URL + "/raise-before-accept"):
            return "accepted"
    except InvalidStatus as refused:
        return refused.response.status_code


async def raise_after_accept():
    async with connect(URL + "/raise-after-accept") as ws:
        try:
            await ws.recv()
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else 1006


async def fragmented():
    """Text in three fragments with a ping between them: one message back, and a pong."""
    reader, writer = await raw_connect("/echo?fragmented")
    writer.write(frame(1, "hé".encode(), fin=False) + frame(9, b"p1") + frame(0, "ll".encode(), fin=False)
                 + frame(0, b"o", fin=True))
    got = []
    while len(got) < 2:
        got.append(await read_frame(reader))
    writer.write(frame(8, struct.pack("!H", 1000)))
    await writer.drain()
    writer.close()
    return sorted([opcode, payload.decode()] for opcode, payload in got)


async def fragmented_binary():
    reader, writer = await raw_connect("/echo?fragmented_binary")
    writer.write(frame(2, b"\x00" * 70000, fin=False) + frame(0, b"\x01" * 70000, fin=True))
    opcode, payload = await read_frame(reader)
    writer.close()
    return [opcode, payload == b"\x00" * 70000 + b"\x01" * 70000]


async def invalid_utf8():
    reader, writer = await raw_connect("/echo?invalid_utf8")
    writer.write(frame(1, b"ok \xff\xfe"))
    result = await read_until_close(reader)
    writer.close()
    return result


async def invalid_utf8_fragmented():
    reader, writer = await raw_connect("/echo?invalid_utf8_fragmented")
    writer.write(frame(1, b"caf\xc3", fin=False) + frame(0, b"\x28", fin=True))  # \xc3 then a non-continuation byte
    result = await read_until_close(reader)
    writer.close()
    return result


async def unmasked():
    reader, writer = await raw_connect("/echo?unmasked")
    writer.write(frame(1, b"hi", mask=False))
    result = await read_until_close(reader)
    writer.close()
    return result


async def reserved_opcode():
    reader, writer = await raw_connect("/echo?reserved_opcode")
    writer.write(frame(3, b"?"))
    result = await read_until_close(reader)
    writer.close()
    return result


async def rsv1_without_deflate():
    """A compressed-looking frame on a connection that did not negotiate permessage-deflate."""
    reader, writer = await raw_connect("/echo?rsv1_without_deflate")
    writer.write(frame(1, b"hi", rsv=0x40))
    result = await read_until_close(reader)
    writer.close()
    return result


async def orphan_continuation():
    reader, writer = await raw_connect("/echo?orphan_continuation")
    writer.write(frame(0, b"x"))
    result = await read_until_close(reader)
    writer.close()
    return result


async def max_size():
    """3 MiB against --ws-max-size 2 MiB: 1009; just under it passes."""
    async with connect(URL + "/echo?max_size_ok", max_size=None) as ws:
        await ws.send(b"a" * (2 * 1024 * 1024))
        ok = len(await ws.recv())
    async with connect(URL + "/echo?max_size", max_size=None, compression=None) as ws:
        try:
            await ws.send(b"a" * (3 * 1024 * 1024))  # the server's close can arrive while this still sends
            await ws.recv()
            return "not closed"
        except ConnectionClosed as closed:
            return [ok, closed.rcvd.code if closed.rcvd else None]


async def max_size_fragmented():
    reader, writer = await raw_connect("/echo?max_size_fragmented")
    closing = asyncio.ensure_future(read_until_close(reader))  # read while writing: the close comes mid-message
    writer.write(frame(2, b"b" * (1024 * 1024), fin=False))
    for _ in range(2):
        writer.write(frame(0, b"b" * (1024 * 1024), fin=False))
    writer.write(frame(0, b"b", fin=True))
    result = await closing
    writer.close()
    return result


async def ping_timeout():
    """A client that never answers pings is closed with 1011 (ping interval and timeout 1 s)."""
    reader, writer = await raw_connect("/echo?ping_timeout")
    opcodes, code = await asyncio.wait_for(read_until_close(reader), 10)
    writer.close()
    return [9 in opcodes, code]


async def pings_answered():
    """The websockets client answers pings: still open after several ping intervals."""
    async with connect(URL + "/echo?pings_answered", ping_interval=None) as ws:
        await asyncio.sleep(2)
        await ws.send("still here")
        return await ws.recv()


async def send_until_gone():
    reader, writer = await raw_connect("/send-until-gone?send_until_gone")
    await asyncio.sleep(0.5)  # the app fills the buffers and waits in send()
    writer.transport.abort()
    return await seen_soon("send_until_gone")


async def slow_reader():
    """200 x 64 KiB sent while the app sleeps: all arrive, in order."""
    async with connect(URL + "/slow-reader?slow_reader", compression=None) as ws:
        for i in range(200):
            await ws.send(bytes([i % 256]) * 65536)
        await ws.close()
    return await seen_soon("slow_reader")


async def concurrent():
    """1,000 connections open at once, then each echoes 5 messages. Handshakes go 100 at a time: a
    client that opens 1,000 sockets before writing one request leaves some idle past the server's
    keep-alive timeout (5 s), which closes them as idle HTTP connections."""
    handshakes = asyncio.Semaphore(100)
    all_open = asyncio.Event()
    opened = 0

    async def one(i):
        nonlocal opened
        async with handshakes:
            ws = await connect(f"{URL}/echo?c{i}", compression=None, open_timeout=60)
        async with ws:
            opened += 1
            if opened == 1000:
                all_open.set()
            await all_open.wait()
            for j in range(5):
                await ws.send(f"{i}:{j}")
                if await ws.recv() != f"{i}:{j}":
                    return False
            return True
    results = await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(1000)), return_exceptions=True), 120)
    failures = sorted({repr(r) for r in results if r is not True})
    return [sum(1 for r in results if r is True), failures[:3]]


# ---- against apxtest.ws_frameworks (Starlette and FastAPI)

async def starlette_echo():
    async with connect(URL + "/ws/echo?starlette_echo", subprotocols=["chat"]) as ws:
        await ws.send("hi")
        answer = await ws.recv()
        subprotocol = ws.subprotocol
        await ws.close(4003)
    return [answer, subprotocol, await seen_soon("starlette_echo")]


async def starlette_json():
    async with connect(URL + "/ws/json") as ws:
        await ws.send(json.dumps({"a": [1, 2]}))
        answer = json.loads(await ws.recv())
        try:
            await ws.recv()
        except ConnectionClosed as closed:
            return [answer, closed.rcvd.code, closed.rcvd.reason]


async def starlette_send_until_gone():
    reader, writer = await raw_connect("/ws/send-until-gone?starlette_send_until_gone")
    await asyncio.sleep(0.5)
    writer.transport.abort()
    return await seen_soon("starlette_send_until_gone")


async def starlette_not_found():
    try:
        async with connect(URL + "/ws/missing"):
            return "accepted"
    except InvalidStatus as refused:
        return refused.response.status_code


async def fastapi_item():
    async with connect(URL + "/fastapi/items/7?q=x") as ws:
        await ws.send("hello")
        answer = json.loads(await ws.recv())
    return [answer, await seen_soon("fastapi7")]


async def fastapi_invalid_path():
    try:
        async with connect(URL + "/fastapi/items/nope") as ws:
            await ws.recv()
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else 1006
    except InvalidStatus as refused:
        return refused.response.status_code


# ---- RFC 6455's MUSTs, frame by frame (the answer a conforming server gives is in MUSTS)

async def raw_exchange(ident, data):
    """Sends raw frames after the handshake; what comes back up to the close frame: (opcodes, close code or None)."""
    reader, writer = await raw_connect("/echo?" + ident)
    writer.write(data)
    result = await read_until_close(reader)
    writer.close()
    return result


def close_frame(payload):
    return frame(8, payload)


async def close_invalid_codes():
    """7.4.1: 1004-1006 and 1015 are reserved, 0-999 and 1016-2999 unassigned, 5000+ out of range: a close with one fails (1002)."""
    return [(await raw_exchange("close_invalid_codes", close_frame(struct.pack("!H", code))))[1]
            for code in (0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535)]


async def close_valid_codes_echoed():
    """5.5.1: the server answers a close with a close; with a valid code, that code."""
    return [(await raw_exchange("close_valid_codes", close_frame(struct.pack("!H", code))))[1]
            for code in (1000, 1001, 1002, 1003, 1007, 1011, 3000, 4999)]


async def close_empty():
    return await raw_exchange("close_empty", close_frame(b""))


async def close_one_byte():
    """5.5.1: a close body is empty or starts with a 2-byte code."""
    return await raw_exchange("close_one_byte", close_frame(b"\x03"))


async def close_reason_invalid_utf8():
    """5.5.1, 8.1: the close reason is UTF-8; invalid bytes fail the connection with 1007."""
    return await raw_exchange("close_reason_invalid_utf8", close_frame(struct.pack("!H", 1000) + b"\xff\xfe"))


async def close_reason_utf8():
    return await raw_exchange("close_reason_utf8", close_frame(struct.pack("!H", 1000) + "bye é".encode()))


async def ping_too_long():
    """5.5: a control frame's payload is at most 125 bytes."""
    return await raw_exchange("ping_too_long", frame(9, b"p" * 126))


async def ping_fragmented():
    """5.5: control frames are never fragmented."""
    return await raw_exchange("ping_fragmented", frame(9, b"p", fin=False))


async def close_fragmented():
    return await raw_exchange("close_fragmented", frame(8, struct.pack("!H", 1000), fin=False))


async def pong_unsolicited():
    """5.5.3: an unsolicited pong is ignored; the echo still works."""
    reader, writer = await raw_connect("/echo?pong_unsolicited")
    writer.write(frame(10, b"x") + frame(1, b"after pong"))
    opcode, payload = await read_frame(reader)
    writer.write(close_frame(struct.pack("!H", 1000)))
    closing = await read_until_close(reader)
    writer.close()
    return [opcode, payload.decode(), closing[1]]


async def text_inside_fragmented_message():
    """5.4: a new data frame before the final fragment of the previous message is a protocol error."""
    return await raw_exchange("text_inside_fragmented", frame(1, b"a", fin=False) + frame(1, b"b"))


async def empty_fragments():
    """5.4: fragments may be empty; the message is their concatenation."""
    reader, writer = await raw_connect("/echo?empty_fragments")
    writer.write(frame(1, b"", fin=False) + frame(0, b"ab", fin=False) + frame(0, b"", fin=False) + frame(0, b"c"))
    opcode, payload = await read_frame(reader)
    writer.close()
    return [opcode, payload.decode()]


async def utf8_split_across_fragments():
    """8.1: the UTF-8 check is on the whole message: a code point may span two fragments."""
    reader, writer = await raw_connect("/echo?utf8_split")
    writer.write(frame(1, b"caf\xc3", fin=False) + frame(0, b"\xa9"))
    opcode, payload = await read_frame(reader)
    writer.close()
    return [opcode, payload.decode()]


async def utf8_invalid_forms():
    """8.1: overlong forms, surrogates and code points above U+10FFFF are not UTF-8 (1007)."""
    return [(await raw_exchange("utf8_invalid_forms", frame(1, data)))[1]
            for data in (b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80")]


async def reserved_bits():
    """5.2: RSV2 and RSV3 without an extension that defines them fail the connection."""
    return [(await raw_exchange("reserved_bits", frame(1, b"hi", rsv=rsv)))[1] for rsv in (0x20, 0x10)]


async def reserved_control_opcode():
    """5.2: opcodes 0xB-0xF are reserved."""
    return await raw_exchange("reserved_control_opcode", frame(0xB, b"?"))


async def handshake_bad_key():
    """4.2.1: Sec-WebSocket-Key must be base64 of 16 bytes; anything else gets 400."""
    host, port = ADDRESS.rsplit(":", 1)
    statuses = []
    for key in ("abc", base64.b64encode(b"x" * 15).decode(), "!" * 24):
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write((f"GET /echo?bad_key HTTP/1.1\r\nHost: {ADDRESS}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status = await reader.readuntil(b"\r\n")
        statuses.append(int(status.split()[1]))
        writer.close()
    return statuses


# What a server that keeps each MUST answers (as JSON, the way main() prints it); with the protocol-fault
# checks above (RFC 6455 sections in their docstrings).
MUSTS = {
    "close_invalid_codes": [1002] * 10,
    "close_valid_codes_echoed": [1000, 1001, 1002, 1003, 1007, 1011, 3000, 4999],
    "close_empty": [[], 1005],
    "close_one_byte": [[], 1002],
    "close_reason_invalid_utf8": [[], 1007],
    "close_reason_utf8": [[], 1000],
    "ping_too_long": [[], 1002],
    "ping_fragmented": [[], 1002],
    "close_fragmented": [[], 1002],
    "pong_unsolicited": [1, "after pong", 1000],
    "text_inside_fragmented_message": [[], 1002],
    "empty_fragments": [1, "abc"],
    "utf8_split_across_fragments": [1, "café"],
    "utf8_invalid_forms": [1007] * 4,
    "reserved_bits": [1002, 1002],
    "reserved_control_opcode": [[], 1002],
    "handshake_bad_key": [400, 400, 400],
    "invalid_utf8": [[], 1007],
    "invalid_utf8_fragmented": [[], 1007],
    "unmasked": [[], 1002],
    "reserved_opcode": [[], 1002],
    "rsv1_without_deflate": [[], 1002],
    "orphan_continuation": [[], 1002],
}
MUST_CHECKS = [close_invalid_codes, close_valid_codes_echoed, close_empty, close_one_byte, close_reason_invalid_utf8,
               close_reason_utf8, ping_too_long, ping_fragmented, close_fragmented, pong_unsolicited,
               text_inside_fragmented_message, empty_fragments, utf8_split_across_fragments, utf8_invalid_forms,
               reserved_bits, reserved_control_opcode, handshake_bad_key]


FRAMEWORK_CHECKS = [starlette_echo, starlette_json, starlette_send_until_gone, starlette_not_found, fastapi_item,
                    fastapi_invalid_path]

CHECKS = [echo_text, echo_bytes, one_mib, no_deflate, deflate, subprotocol, accept_headers, scope, server_close,
          client_close, tcp_drop, deny, deny_response, raise_before_accept, raise_after_accept, fragmented,
          fragmented_binary, invalid_utf8, invalid_utf8_fragmented, unmasked, reserved_opcode, rsv1_without_deflate,
          orphan_continuation, max_size, max_size_fragmented, ping_timeout, pings_answered, send_until_gone, *MUST_CHECKS]
# Asked for by name, against a server with the default (20 s) pings, since with 1 s pings a pong can
# come late through no fault of the server: from a client busy with 1,000 connections, or queued
# behind megabytes the slow reader has not taken yet.
LOADED_CHECKS = [concurrent, slow_reader]


async def main(names):
    musts = names == ["musts"]
    if musts:
        names = list(MUSTS)
    chosen = [c for c in CHECKS + LOADED_CHECKS + FRAMEWORK_CHECKS if c.__name__ in names] if names else CHECKS
    kept = 0
    for check in chosen:
        try:
            result = await asyncio.wait_for(check(), 150)
        except Exception as error:  # reported, not raised: the test shows which check failed and how
            result = {"error": f"{type(error).__name__}: {error}"}
        line = json.dumps(result, sort_keys=True)
        if musts:
            ok = line == json.dumps(MUSTS[check.__name__], sort_keys=True)
            kept += ok
            line += "" if ok else "   (RFC 6455: %s)" % json.dumps(MUSTS[check.__name__])
        print(check.__name__, line, flush=True)
    if musts:
        print("kept %d of %d" % (kept, len(chosen)), flush=True)


asyncio.run(main(sys.argv[2:]))
