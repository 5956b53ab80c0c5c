#!/bin/sh
# CI step for the on-chain programs (meant to be called from .ci/run):
# installs Debian clang when missing, then checks that rebuilding every program and linker
# fixture from source reproduces the committed bytes exactly.
set -eu
cd "$(dirname "$0")/.."
if ! command -v "${CLANG:-clang}" >/dev/null 2>&1; then
  apt-get update
  apt-get install -y --no-install-recommends clang
fi
npx tsx programs/build.ts --check
