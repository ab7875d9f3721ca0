#!/usr/bin/env bash
# setup.sh — checks, before anything runs, that this machine has every tool
# the test suite (scripts/test.sh) needs, and installs what is missing
# when it can.
#
# Needed: Go, Node (20 or newer) and npm, which you install yourself (see
# README.md); and gcc, g++, make, git, python3, Neovim, tmux, Chromium, the
# Kerberos headers (libkrb5-dev, for code-server's native modules) and CA
# certificates, which it installs with apt-get when it runs as root on a
# Debian or Ubuntu machine (apt-get update first, quietly). Otherwise it
# prints one line naming what to install and exits 1.
#
#   bash scripts/setup.sh          # as root: installs; else: checks
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }

# Tools you install yourself: no distribution package is recent enough
# everywhere (go.mod wants Go 1.26, the VS Code extension Node 20).
own=()
have go || own+=("Go 1.26+ (https://go.dev/dl/)")
if ! have node; then
	own+=("Node 20+")
elif [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 20 ]; then
	own+=("Node 20+ (found $(node --version))")
fi
have npm || own+=("npm")

# Tools apt-get installs: the command (or file) that shows each is there,
# and its package.
missing_pkgs() {
	local pkgs=()
	have gcc || pkgs+=(gcc)
	have g++ || pkgs+=(g++)
	have make || pkgs+=(make)
	have git || pkgs+=(git)
	have python3 || pkgs+=(python3)
	have nvim || pkgs+=(neovim)
	have tmux || pkgs+=(tmux)
	have chromium || have chromium-browser || pkgs+=(chromium)
	[ -e /usr/include/krb5.h ] || [ -e /usr/include/krb5/krb5.h ] || pkgs+=(libkrb5-dev)
	[ -e /etc/ssl/certs/ca-certificates.crt ] || [ -e /etc/ssl/cert.pem ] || pkgs+=(ca-certificates)
	echo "${pkgs[@]}"
}
read -r -a pkgs <<<"$(missing_pkgs)"

if [ "${#own[@]}" -gt 0 ]; then
	all=("${own[@]}" "${pkgs[@]}")
	echo "setup: install $(IFS=,; echo "${all[*]}" | sed 's/,/, /g') first, then run the tests again" >&2
	exit 1
fi
if [ "${#pkgs[@]}" -eq 0 ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! have apt-get; then
	echo "setup: missing ${pkgs[*]}: install them (on Debian or Ubuntu: sudo apt-get install ${pkgs[*]}), then run the tests again" >&2
	exit 1
fi
echo "setup: apt-get install ${pkgs[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
read -r -a still <<<"$(missing_pkgs)"
if [ "${#still[@]}" -gt 0 ]; then
	echo "setup: apt-get installed ${pkgs[*]} but ${still[*]} is still missing; install it by hand" >&2
	exit 1
fi
