#!/bin/sh
# Make sure the browser backend can find a Chromium: $GUIGYM_CHROMIUM, Playwright's own
# (`playwright install chromium`) or the system one. When none is there and we run as root
# on Debian/Ubuntu (CI), install the distribution's chromium and fonts.
set -e
PY=${1:-.venv/bin/python}
if "$PY" -m guigym.backends.chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "No Chromium found; installing Debian's chromium (root, apt-get)."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q chromium fonts-dejavu-core >/dev/null 2>&1 || {
        apt-get update -q >/dev/null && apt-get install -y -q chromium fonts-dejavu-core >/dev/null
    }
    "$PY" -m guigym.backends.chromium
    exit $?
fi
echo "No Chromium found for the browser backend. Run '$(dirname "$PY")/playwright install chromium'," >&2
echo "or install your distribution's chromium and set GUIGYM_CHROMIUM=/path/to/chromium." >&2
exit 1
