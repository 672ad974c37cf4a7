#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""netns_forward.py — TCP forwarder for the multi-host tests, with per-source byte accounting.

Agents in network namespaces cannot reach the test cluster on 127.0.0.1 of the root namespace;
this listens on the bridge address and forwards every connection to the cluster. Every 250 ms
it appends one JSON line per source address that sent bytes towards the cluster:

    {"t": 1700000000.0, "src": "10.213.1.11", "bytes": 123456}

so a test can tell when one agent host stopped loading the target (measured at the target,
not by the agent's own word). Standard library only.

    netns_forward.py --listen 10.213.1.1:19200 --to 127.0.0.1:19200 --log FILE
"""
import argparse
import asyncio
import collections
import json
import time

counts = collections.Counter()


async def pipe(reader, writer, src=None):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if src is not None:
                counts[src] += len(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except OSError:
            pass


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--to", required=True)
    ap.add_argument("--log", required=True)
    args = ap.parse_args()
    lhost, lport = args.listen.rsplit(":", 1)
    thost, tport = args.to.rsplit(":", 1)

    async def on_client(reader, writer):
        src = writer.get_extra_info("peername")[0]
        try:
            ureader, uwriter = await asyncio.open_connection(thost, int(tport))
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, uwriter, src), pipe(ureader, writer))

    server = await asyncio.start_server(on_client, lhost, int(lport), backlog=512)
    with open(args.log, "a", buffering=1) as log:
        log.write(json.dumps({"t": time.time(), "src": "-", "bytes": 0, "listening": args.listen}) + "\n")
        async with server:
            while True:
                await asyncio.sleep(0.25)
                now = time.time()
                for src, n in sorted(counts.items()):
                    log.write(json.dumps({"t": now, "src": src, "bytes": n}) + "\n")
                counts.clear()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
