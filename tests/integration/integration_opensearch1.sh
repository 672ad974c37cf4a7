#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# integration_opensearch1 — the quickstart's first cell against a real 1-node OpenSearch 1.3.20
# (deploy/devcluster-os1: the server, transport-netty4-client and mapper-extras-client from
# Maven Central, class-path plugins, Java 17), started on free ports: the probe names it, the
# row is verified by _count (engine_quickstart in lib.sh).
source "$(dirname "$0")/lib.sh"
cd "$TMP"
engine_quickstart opensearch1 1.3.20 opensearch
pass "quickstart's first cell against OpenSearch 1.3.20: verified"
