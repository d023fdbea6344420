#!/usr/bin/env bash
# The built docs in a real browser: headless Chromium loads every
# page of docs/_build/html (built by the step before) and .ci/docs_browser.py
# reports cut-off code and tables, images that do not load or overflow, and
# error boxes.  apt: chromium (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python .ci/docs_browser.py docs/_build/html
