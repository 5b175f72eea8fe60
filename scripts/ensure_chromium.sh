#!/bin/sh
# Make sure the browser backend can find a Chromium: $GUIGYM_CHROMIUM, Playwright's own
# (`playwright install chromium`) or the system one. When none is there and we run as root
# on Debian/Ubuntu (CI), install the distribution's chromium and fonts.
#
#     sh scripts/ensure_chromium.sh [PYTHON]     # PYTHON: the venv's python (.venv/bin/python)
set -e
PY=${1:-.venv/bin/python}
# First that $PY runs guigym with Playwright: a missing venv or Playwright read as "no Chromium"
# (as root: Debian's chromium installed for nothing, then the same failure; otherwise advice to
# install a Chromium that could not help).
if ! "$PY" -c "from guigym.backends.chromium import require_playwright; require_playwright()" >/dev/null 2>&1; then
    echo "$PY cannot run guigym's browser backend (no such python, no guigym, or no Playwright):" >&2
    echo "make the venv first (make install), or pip install 'guigym[browser]' into it." >&2
    exit 1
fi
if "$PY" -m guigym.backends.chromium >/dev/null 2>&1; then
    exit 0
fi
if [ -n "${GUIGYM_CHROMIUM:-}" ]; then
    # $GUIGYM_CHROMIUM is used alone: installing another Chromium would not change that
    echo "GUIGYM_CHROMIUM=$GUIGYM_CHROMIUM does not start (unset it to search for another):" >&2
    "$PY" -m guigym.backends.chromium >/dev/null || exit 1
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "No Chromium found; installing Debian's chromium (root, apt-get)."
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q chromium fonts-dejavu-core >/dev/null 2>&1; then
        # the package lists may be stale or missing (a fresh container): fetch them once
        if ! { apt-get update -q >/dev/null && apt-get install -y -q chromium fonts-dejavu-core >/dev/null; }; then
            echo "apt-get could not install chromium (its messages are above). Install a Chromium another way:" >&2
            echo "'$(dirname "$PY")/playwright install --with-deps chromium' (needs the internet), or your" >&2
            echo "distribution's package, then set GUIGYM_CHROMIUM=/path/to/chromium if guigym does not find it." >&2
            exit 1
        fi
    fi
    "$PY" -m guigym.backends.chromium
    exit $?
fi
echo "No Chromium found for the browser backend. Run '$(dirname "$PY")/playwright install chromium'," >&2
echo "or install your distribution's chromium and set GUIGYM_CHROMIUM=/path/to/chromium." >&2
exit 1
