#!/usr/bin/env python3
"""A TCP proxy that delays every byte by half a round trip each way, so that a client on
loopback pays what it would pay on a real network: a new connection its TCP and TLS
handshakes, a request its round trip. Order is kept; bandwidth is not limited.

    delay-proxy.py LISTEN_PORT UPSTREAM_PORT RTT_MS STATS_FILE

Listens on 127.0.0.1:LISTEN_PORT (0: any free port, printed as "port N" on stdout) and
writes the number of connections accepted so far to STATS_FILE after each one.
"""
import asyncio
import sys
import time


async def pipe(reader, writer, delay):
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        try:
            writer.write_eof()
        except (OSError, RuntimeError):
            pass

    sender = asyncio.create_task(deliver())
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            queue.put_nowait((time.monotonic() + delay, data))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait((time.monotonic() + delay, None))
    try:
        await sender
    except (ConnectionError, OSError):
        pass


async def main():
    listen, upstream, rtt_ms, stats = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    delay = rtt_ms / 2000.0
    accepted = 0

    async def handle(client_reader, client_writer):
        nonlocal accepted
        accepted += 1
        with open(stats, "w") as f:
            f.write(f"{accepted}\n")
        # The SYN/SYN-ACK of the upstream connection: one round trip before any byte moves.
        await asyncio.sleep(2 * delay)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, up_writer, delay), pipe(up_reader, client_writer, delay))
        for w in (client_writer, up_writer):
            try:
                w.close()
            except OSError:
                pass

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    print(f"port {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
