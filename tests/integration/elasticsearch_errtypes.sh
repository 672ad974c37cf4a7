#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elasticsearch_errtypes — errors by type against the real 3-node Elasticsearch 8.17.0 (the
# "devcluster_es8" fixture): integration_errtypes' three cells, where Elasticsearch 8.8+ names a
# document that does not fit its mapping document_parsing_exception (OpenSearch:
# mapper_parsing_exception): mapping and version conflicts are counted by type with their real
# reasons (matrix.json, matrix.csv, report.html), routing_missing_exception is other 4xx, and a
# cell whose every document fails the mapping stops at once with the mapping hint.
set -euo pipefail
: "${BF_TEST_ES:?BF_TEST_ES is not set (run through ctest)}"
exec bash "$(dirname "$0")/integration_errtypes.sh"
