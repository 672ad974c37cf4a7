#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/chaos.sh --seed S --faults N [--duration D] [--port P] [--out DIR] [-v] — a campaign under
# N random faults drawn from seed S in its first D seconds (default 30s), then its invariants
# checked; last line "faults N, invariant violations V". The faults, the campaign and the
# invariants are described in bench/chaos.py and bench/chaos_check.py. Root is needed for the
# full-disk fault (a tmpfs); without it that fault is not drawn.
# Binaries from BF_BUILD_DIR (default build/).
set -euo pipefail
exec python3 "$(cd "$(dirname "$0")" && pwd)/chaos.py" "$@"
