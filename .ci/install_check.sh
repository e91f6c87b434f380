#!/usr/bin/env bash
# The documented installs work from a clean clone: `pip install .` into a fresh virtual environment
# (README's first command, then the CLI on the bundled project), and the `pip install "git+URL@REF"`
# form of docs/ci.md with this repository's HEAD (a git+file:// URL, so no network is needed for
# the source). Each in its own venv, never touching the caller's Python. Exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

check_cli() {  # $1: the venv's bin directory
    "$1/torch-upgrade" --version
    status=0
    "$1/torch-upgrade" scan "$root/fixtures/legacy_project" --format concise > "$work/out.txt" || status=$?
    if [ "$status" != 1 ]; then
        echo "install_check: expected exit 1 (findings) from the bundled project, got $status" >&2
        exit 1
    fi
    count=$(wc -l < "$work/out.txt")
    if [ "$count" -ne 21 ]; then
        echo "install_check: expected 21 findings, got $count" >&2
        cat "$work/out.txt" >&2
        exit 1
    fi
    "$1/python" -c "import torch_upgrade, sys; r = torch_upgrade.scan_source('import torch\nx = torch.qr(a)\n', from_version='1.9'); sys.exit(0 if [f.rule for f in r.findings] == ['TU204'] else 1)"
    if "$1/python" -c "import torch" 2>/dev/null; then
        echo "install_check: note: torch is importable in the fresh environment (it is not a dependency)" >&2
    fi
}

echo "== pip install . (a fresh venv)"
"$python" -m venv "$work/venv-dot"
"$work/venv-dot/bin/python" -m pip install --quiet --disable-pip-version-check "$root"
check_cli "$work/venv-dot/bin"

if git -C "$root" rev-parse --verify -q HEAD > /dev/null; then
    ref="$(git -C "$root" rev-parse HEAD)"
    echo "== pip install \"git+file://$root@$ref\" (a fresh venv)"
    "$python" -m venv "$work/venv-git"
    "$work/venv-git/bin/python" -m pip install --quiet --disable-pip-version-check "git+file://$root@$ref"
    check_cli "$work/venv-git/bin"
else
    echo "== not a git checkout: the git+ install is not checked" >&2
fi
echo "install_check: ok"
