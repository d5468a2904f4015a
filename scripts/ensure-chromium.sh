#!/usr/bin/env bash
# Run before `npm test` (npm's pretest): the HTML report is checked in a real browser, Debian's
# Chromium, never a test tool's download. A fresh machine does not have it, so install it here,
# with apt-get as root or through sudo; otherwise say what to run and fail before the suite starts.
set -euo pipefail
for p in /usr/bin/chromium /usr/bin/chromium-browser; do
  [ -x "$p" ] && exit 0
done
if ! command -v apt-get >/dev/null 2>&1; then
  echo "skewscan tests: Chromium is not installed and this machine has no apt-get; install Chromium as /usr/bin/chromium" >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "skewscan tests: Chromium is not installed; run: sudo apt-get install chromium" >&2
  exit 1
fi
echo "skewscan tests: installing Debian's chromium package (once, for the HTML report's browser test)" >&2
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq chromium >/dev/null
