#!/usr/bin/env bash
# Two "hosts" made of network namespaces joined by a veth pair, each with its own D-Bus system
# bus and avahi-daemon, for Castor's discovery lab tests. Needs root.
#
#   castlab.sh up RUN          create namespaces RUNa (10.77.0.1/24) and RUNb (10.77.0.2/24),
#                              start dbus-daemon + avahi-daemon in each; prints the run directory
#   castlab.sh exec RUN a|b CMD...
#                              run CMD inside host a or b, with DBUS_SYSTEM_BUS_ADDRESS pointing
#                              at that host's bus
#   castlab.sh stop-avahi RUN a|b   end that host's avahi-daemon (the one this script started)
#   castlab.sh start-avahi RUN a|b  start it again
#   castlab.sh down RUN        end every process this run started (by recorded PID), delete the
#                              namespaces and the run directory. Safe to call twice.
#
# RUN is a short unique tag (letters/digits, at most 8 chars); interface names are RUN plus a
# suffix so they fit IFNAMSIZ. Nothing is sent anywhere but between the two namespaces.
set -euo pipefail
# Close every inherited descriptor above stderr, so the daemons started below do not keep a
# caller's pipe open (a caller reading our output to EOF would otherwise wait for them).
for fd in $(ls /proc/$$/fd); do
  [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null || true
done

cmd="${1:?usage: castlab.sh up|down|exec|stop-avahi|start-avahi RUN ...}"
run="${2:?run tag missing}"
[[ "$run" =~ ^[a-z0-9]{1,8}$ ]] || { echo "castlab: run tag must be 1-8 lower-case letters/digits" >&2; exit 2; }
dir="/tmp/castlab-$run"
ns() { echo "cl${run}$1"; }          # namespace name for host a|b
veth() { echo "cl${run}v$1"; }       # veth end living in host a|b
addr() { [ "$1" = a ] && echo 10.77.0.1 || echo 10.77.0.2; }

write_configs() {
  local h="$1" d="$dir/$1"
  mkdir -p "$d"
  cat > "$d/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$d/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
CONF
  cat > "$d/avahi.conf" <<CONF
[server]
host-name=castlab-$run-$h
use-ipv4=yes
use-ipv6=yes
allow-interfaces=$(veth "$h")
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-addresses=yes
[reflector]
[rlimits]
CONF
}

start_dbus() {
  local h="$1" d="$dir/$1"
  rm -f "$d/bus.sock"
  ip netns exec "$(ns "$h")" dbus-daemon --config-file="$d/bus.conf" --nofork --nopidfile \
    >"$d/dbus.log" 2>&1 &
  echo $! > "$d/dbus.pid"
  for _ in $(seq 1 100); do [ -S "$d/bus.sock" ] && return 0; sleep 0.05; done
  echo "castlab: dbus-daemon for host $h did not start" >&2; cat "$d/dbus.log" >&2; return 1
}

start_avahi() {
  local h="$1" d="$dir/$1"
  # avahi-daemon keeps its pid file and socket in /run/avahi-daemon: give this instance its own
  # /run/avahi-daemon (a tmpfs in the private mount namespace `ip netns exec` creates).
  ip netns exec "$(ns "$h")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$d/bus.sock" \
    unshare -m --propagation private sh -c \
    'mkdir -p /run/avahi-daemon && mount -t tmpfs castlab /run/avahi-daemon && exec avahi-daemon --no-chroot --no-drop-root --no-rlimits --no-proc-title -f "$1"' \
    sh "$d/avahi.conf" >"$d/avahi.log" 2>&1 &
  echo $! > "$d/avahi.pid"
  for _ in $(seq 1 200); do
    grep -q "Server startup complete" "$d/avahi.log" 2>/dev/null && return 0
    alive "$(cat "$d/avahi.pid")" || break
    sleep 0.05
  done
  echo "castlab: avahi-daemon for host $h did not start" >&2; cat "$d/avahi.log" >&2; return 1
}

alive() {  # running and not a zombie (an exited daemon waits for init to reap it)
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

stop_pidfile() {
  local f="$1"
  [ -f "$f" ] || return 0
  local pid; pid="$(cat "$f")"
  # Only a process of this run: its command line names this run's directory.
  if alive "$pid" && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q "$dir/"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do alive "$pid" || break; sleep 0.05; done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

case "$cmd" in
  up)
    [ "$(id -u)" -eq 0 ] || { echo "castlab: needs root" >&2; exit 77; }
    mkdir -p "$dir"
    ip netns add "$(ns a)"
    ip netns add "$(ns b)"
    ip link add "$(veth a)" type veth peer name "$(veth b)"
    for h in a b; do
      ip link set "$(veth "$h")" netns "$(ns "$h")"
      ip -n "$(ns "$h")" addr add "$(addr "$h")/24" dev "$(veth "$h")"
      ip -n "$(ns "$h")" link set lo up
      ip -n "$(ns "$h")" link set "$(veth "$h")" up
      write_configs "$h"
      start_dbus "$h"
      start_avahi "$h"
    done
    echo "$dir"
    ;;
  exec)
    h="${3:?host a or b}"; shift 3
    exec ip netns exec "$(ns "$h")" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/$h/bus.sock" "$@"
    ;;
  stop-avahi)
    stop_pidfile "$dir/${3:?host}/avahi.pid"
    ;;
  start-avahi)
    start_avahi "${3:?host}"
    ;;
  down)
    for h in a b; do
      stop_pidfile "$dir/$h/avahi.pid"
      stop_pidfile "$dir/$h/dbus.pid"
    done
    for h in a b; do ip netns del "$(ns "$h")" 2>/dev/null || true; done
    rm -rf "$dir"
    ;;
  *)
    echo "castlab: unknown command $cmd" >&2; exit 2 ;;
esac
