#!/usr/bin/env bash
# Regenerates Sources/ListServer/Generated/OpenAPIDocument.swift from openapi.yaml, and WebAssets.swift from the
# browser app in Web/, with the generator beside them (Sources/ListServer/Generated/openapi-embed.py, which says
# what the files hold and why they are committed).
#   scripts/openapi-embed.sh           rewrite the Swift files
#   scripts/openapi-embed.sh --check   exit 1 if a Swift file is not what the generator would write (CI runs this)
# OpenAPIDocumentTests fail when openapi.yaml and the embedded copy differ: edit openapi.yaml, then run this script.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import yaml' 2>/dev/null || python3 -m pip install --quiet PyYAML
exec python3 Sources/ListServer/Generated/openapi-embed.py "$@"
