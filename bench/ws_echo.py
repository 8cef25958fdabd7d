"""Echo round trips per second over N WebSocket connections.

    python bench/ws_echo.py ws://127.0.0.1:8000/echo [CONNECTIONS=100] [SECONDS=10]

Each connection sends a 16-byte masked text frame and waits for its echo, in a loop, for SECONDS
after all are open; prints round trips per second. The load generator is a bare asyncio protocol
on uvloop that writes one prebuilt frame and counts echoed bytes: the websockets library costs
~1 ms of client CPU per round trip here, which would measure the client, not the server.
bench/ws_echo.sh runs apx and Uvicorn side by side.
"""
import asyncio
import base64
import os
import sys
import time
from urllib.parse import urlsplit

import uvloop

PAYLOAD = b"0123456789abcdef"
KEY = os.urandom(4)
FRAME = bytes([0x81, 0x80 | len(PAYLOAD)]) + KEY + bytes(b ^ KEY[i % 4] for i, b in enumerate(PAYLOAD))
ECHO = 2 + len(PAYLOAD)  # the server's unmasked frame


class Echo(asyncio.Protocol):
    def __init__(self, opened):
        self.opened = opened
        self.buffered = b""
        self.upgraded = False
        self.count = 0
        self.running = True

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        if not self.upgraded:
            self.buffered += data
            if b"\r\n\r\n" in self.buffered:
                head, _, rest = self.buffered.partition(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 101"), head
                self.upgraded = True
                self.pending = len(rest)
                self.opened.set_result(self)
            return
        self.pending += len(data)
        while self.pending >= ECHO:
            self.pending -= ECHO
            self.count += 1
            if self.running:
                self.transport.write(FRAME)


async def main(url, connections, seconds):
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    clients = []
    for _ in range(connections):
        opened = loop.create_future()
        transport, _ = await loop.create_connection(lambda: Echo(opened), parts.hostname, parts.port)
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        clients.append(await opened)
    started = time.monotonic()
    for client in clients:
        client.transport.write(FRAME)
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - started
    done = sum(client.count for client in clients)
    for client in clients:
        client.running = False
        client.transport.close()
    print(f"{done / elapsed:.0f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    uvloop.run(main(args[0], int(args[1]) if len(args) > 1 else 100, float(args[2]) if len(args) > 2 else 10))
