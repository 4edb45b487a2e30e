#!/usr/bin/env bash
# Regenerates Sources/ListServer/Generated/OpenAPIDocument.swift from openapi.yaml with the generator beside it
# (Sources/ListServer/Generated/openapi-embed.py, which says what the file holds and why it is committed).
#   scripts/openapi-embed.sh           rewrite the Swift file
#   scripts/openapi-embed.sh --check   exit 1 if the Swift file is not what the generator would write (CI runs this)
# OpenAPIDocumentTests fail when openapi.yaml and the embedded copy differ: edit openapi.yaml, then run this script.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet PyYAML
exec python3 Sources/ListServer/Generated/openapi-embed.py "$@"
