#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/chaos.sh --seed S --faults N [--duration D] [--port P] [--out DIR] [--net N]
#                [--cluster http://127.0.0.1:PORT] [-v] — a campaign under N random faults drawn
# from seed S in its first D seconds (default 30s), then its invariants checked; last line
# "faults N, invariant violations V". The faults, the campaign and the invariants are described
# in bench/chaos.py and bench/chaos_check.py. Root is needed for the full-disk fault (a tmpfs)
# and for the agent hosts in network namespaces (partitions, delay, loss); without it those
# faults are not drawn. --cluster: against a running dev cluster instead of the fault server.
# Binaries from BF_BUILD_DIR (default build/).
set -euo pipefail
exec python3 "$(cd "$(dirname "$0")" && pwd)/chaos.py" "$@"
