#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""chaos_forward.py — the TCP forwarder between bench/chaos.sh's agent namespaces and its target
(the fault server or the dev cluster), which also delays and "loses" what it forwards.

This kernel has no sch_netem (`tc qdisc add ... netem` answers "Specified qdisc kind is
unknown"), so packet delay and loss are made here, in user space, on the forwarded byte
stream: with delay_ms D every chunk read (up to 64 KiB) waits D ms before it is written on;
with loss P each chunk is, with probability P, held 200 to 600 ms first, what a lost TCP
segment costs the application (a retransmission timeout; the bytes themselves are never
dropped: TCP would resend them). Both directions, every connection. The control file (JSON
{"delay_ms": D, "loss": P}, read every 100 ms; missing = 0, 0) sets them while it runs.

    chaos_forward.py --listen HOST:PORT --to HOST:PORT --control FILE [--seed S]

Prints "READY" once it listens. Standard library only; traffic only where --to says.
"""
import argparse
import asyncio
import json
import random

state = {"delay_ms": 0.0, "loss": 0.0}


async def pipe(reader, writer, rng):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if state["loss"] > 0 and rng.random() < state["loss"]:
                await asyncio.sleep(rng.uniform(0.2, 0.6))
            if state["delay_ms"] > 0:
                await asyncio.sleep(state["delay_ms"] / 1000.0)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except OSError:
            pass


async def control(path):
    while True:
        try:
            with open(path) as fh:
                c = json.load(fh)
            state["delay_ms"] = float(c.get("delay_ms", 0) or 0)
            state["loss"] = float(c.get("loss", 0) or 0)
        except (OSError, ValueError):
            state["delay_ms"], state["loss"] = 0.0, 0.0
        await asyncio.sleep(0.1)


async def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen", required=True)
    ap.add_argument("--to", required=True)
    ap.add_argument("--control", required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    lhost, lport = a.listen.rsplit(":", 1)
    thost, tport = a.to.rsplit(":", 1)
    rng = random.Random(a.seed)

    async def on_client(reader, writer):
        try:
            ureader, uwriter = await asyncio.open_connection(thost, int(tport))
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, uwriter, rng), pipe(ureader, writer, rng))

    server = await asyncio.start_server(on_client, lhost, int(lport), backlog=512)
    print("READY", flush=True)
    async with server:
        await asyncio.gather(server.serve_forever(), control(a.control))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
