#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_routing_shardof — `bulkfleet-agent shard-of` (common/bf_routing) agrees with the
# real cluster on where every document went. 4000 documents over four indices (7 shards; 3 shards
# with number_of_routing_shards 30; 30 shards; 6 shards partitioned with routing_partition_size
# 3), ids and routing values ASCII (quotes, backslashes), Latin, CJK and emoji (surrogate pairs),
# a third of them with custom routing. Each is indexed, then each shard is searched alone
# (preference=_shards:K) and the shard it holds every id on is compared with shard-of's answer.
# A few ids are also checked with _search_shards?routing= (the documented oracle). The check is
# tests/support/shardof_check.py (the Elasticsearch tests run it on fewer indices).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
P="bf-rt-$$"
trap 'curl -sf -X DELETE "$ES/$P-*" > /dev/null 2>&1 || true; cleanup_tmp' EXIT
python3 "$SRC/tests/support/shardof_check.py" "$ES" "$P" "$AGENT" || fail "shard-of disagrees with the cluster (see above)"
# the argument form and a bad line
[ "$("$AGENT" shard-of --shards 5 1)" = 4 ] || fail "shard-of --shards 5 1 is not 4"
printf 'ok\nbad\t\xff\n' | "$AGENT" shard-of --shards 5 > out 2> err && fail "invalid UTF-8 accepted"
grep -q "stdin:2: invalid UTF-8" err || { cat err >&2; fail "the error does not name the line"; }
[ "$(wc -l < out)" = 1 ] || fail "the good line before the bad one was not printed"
pass "shard-of agrees with the cluster on every document (ASCII, non-ASCII, surrogate pairs, routing, partitioned)"
