#!/usr/bin/env bash
# Writes Sources/ListClient/openapi.yaml, the document swift-openapi-generator's build plugin reads, from the
# repository's openapi.yaml with one change: the bounds of the 64-bit unsigned values (seeds, change sequence
# numbers: `maximum: 18446744073709551615`) become Int64's largest, because OpenAPIKit reads an integer's bounds as
# Int and refuses the document otherwise ("Expected an Integer literal but found a floating point value"). The
# generated Swift types are Int (64-bit) either way. Everything else is the server's own description, byte for
# byte. The copy is not committed (.gitignore): run this before `swift build` (scripts/examples-test.sh does).
set -euo pipefail
cd "$(dirname "$0")"
sed 's/maximum: 18446744073709551615$/maximum: 9223372036854775807/' ../../openapi.yaml >Sources/ListClient/openapi.yaml
changed=$(diff ../../openapi.yaml Sources/ListClient/openapi.yaml | grep -c '^>' || true)
echo "Sources/ListClient/openapi.yaml written ($changed unsigned 64-bit bounds lowered to Int64's)"
