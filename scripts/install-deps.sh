#!/usr/bin/env bash
# Installs the system packages ListServer builds against (Debian/Ubuntu), only when missing.
# Usage: scripts/install-deps.sh [extra-debian-package ...]
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
install_missing_packages "${build_packages[@]}" "$@"
