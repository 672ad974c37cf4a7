#!/bin/sh
# SPDX-License-Identifier: MIT
# install-deps.sh — install every Debian package bulkfleet needs to build, test and demo.
#
# Idempotent: checks each package with dpkg-query first and only runs apt-get when something is
# missing (so it needs no root when everything is there). --build: only the packages the build
# and the unit tests need (make build, make test-unit). Run as root on Debian 12 (make demo and make check call it first). Set
# BF_SKIP_DEPS=1 to skip it on a machine you manage yourself.
set -eu

# what `make build` and `make test-unit` need (--build checks only these)
BUILD_PKGS="build-essential cmake pkg-config git
libzmq3-dev libcurl4-openssl-dev libprotobuf-c-dev protobuf-c-compiler
libyaml-dev zlib1g-dev libdeflate-dev libbz2-dev libzstd-dev libjansson-dev libcmocka-dev libssl-dev
libmicrohttpd-dev libhdf5-dev
python3 python3-jinja2 python3-h5py"
# and what the rest of `make check` and `make demo` need
PKGS="$BUILD_PKGS
openjdk-17-jdk-headless maven
prometheus
nginx-light wrk time linux-perf python3 python3-botocore python3-yaml curl iproute2 procps
clang llvm libclang-rt-14-dev clang-format
ansible ansible-lint openssh-server openssh-client sshpass socat sudo python3-apt
chromium"

if [ "${BF_SKIP_DEPS:-0}" = 1 ]; then
    exit 0
fi
if [ "${1:-}" = --build ]; then
    PKGS=$BUILD_PKGS
fi

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing" >&2
    echo "install-deps: run as root (or: sudo apt-get install$missing)" >&2
    exit 3
fi

echo "install-deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# nginx-light must not start a system-wide nginx on port 80 during install.
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
echo "install-deps: done" >&2
