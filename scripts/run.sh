#!/usr/bin/env bash
# Builds ListServer in release mode and starts it with its built-in defaults (0.0.0.0:8080).
# Extra arguments go to the server: scripts/run.sh --port 9000 --seed 7
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$root"
install_missing_packages "${build_packages[@]}"
swift build -c release --product ListServer
exec .build/release/ListServer "$@"
