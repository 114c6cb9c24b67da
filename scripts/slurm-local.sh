#!/usr/bin/env bash
# A single-node Slurm cluster on 127.0.0.1 for minrepro's --launcher slurm tests and benchmark.
#
#   scripts/slurm-local.sh start   # installs slurm-wlm if missing (root, apt), starts the daemons,
#                                  # waits for the node to be idle, prints `export SLURM_CONF=...`
#   scripts/slurm-local.sh stop    # scontrol shutdown, waits for the daemons, removes the state
#   scripts/slurm-local.sh status  # exit 0 when the cluster answers
#
# Everything lives in $MINREPRO_SLURM_DIR (default /tmp/minrepro-slurm): configuration, state,
# spool, logs and pid files. Slurm's ports 6817/6818 are fixed, so only one such cluster can run
# on a host at a time; `start` refuses when one already runs. Authentication is auth/none (no
# munged); the daemons run as root, which is why `start` needs root. Exit status 77 means "cannot
# run here" (not root, or Slurm missing and not installable); the reason is on stderr.
set -euo pipefail

dir=${MINREPRO_SLURM_DIR:-/tmp/minrepro-slurm}
conf=$dir/slurm.conf

skip() { echo "slurm-local: $*" >&2; exit 77; }

answers() { SLURM_CONF=$conf timeout 5 sinfo -h -o %T 2>/dev/null; }

install_if_missing() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v srun >/dev/null && return
  command -v apt-get >/dev/null || skip "slurmctld/slurmd/srun are missing and apt-get is not available"
  echo "slurm-local: installing slurm-wlm" >&2
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge; } >&2 \
    || skip "slurm-wlm could not be installed"
}

write_config() {
  local host cpus mem overrides=""
  host=$(hostname -s)
  cpus=$(nproc)
  # MINREPRO_SLURM_CPUS declares more CPUs than the machine has, so that N job steps whose
  # predicate waits (sleeps, as a GPU or a remote node would) run at once, as on N nodes;
  # config_overrides makes slurmd accept the node as declared.
  if [ -n "${MINREPRO_SLURM_CPUS:-}" ]; then
    cpus=$MINREPRO_SLURM_CPUS
    overrides="SlurmdParameters=config_overrides"
  fi
  # A bit under the free memory: slurmd refuses a node that claims more than it has.
  mem=$(awk '/MemAvailable/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  cat >"$conf" <<CONF
ClusterName=minrepro
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AcctGatherEnergyType=acct_gather_energy/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
$overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
}

start() {
  [ "$(id -u)" = 0 ] || skip "the daemons need root (uid $(id -u))"
  install_if_missing
  if [ -f "$conf" ] && answers >/dev/null; then
    skip "a cluster from $dir already runs (ports 6817/6818 are fixed); stop it first"
  fi
  rm -rf "$dir"
  write_config
  # With the fixed ports, any slurmctld already listening would answer our commands (and be shut
  # down by our `stop`): refuse instead.
  if answers >/dev/null; then
    rm -rf "$dir"
    skip "another Slurm controller already answers on 127.0.0.1:6817 (ports are fixed; one cluster per host)"
  fi
  # One supervisor shell keeps both daemons as its children and waits for them: daemons that
  # outlive their parent linger as zombies in containers without an init that reaps.
  SLURM_CONF=$conf setsid bash -c 'slurmctld -D -i & slurmd -D & wait' \
    </dev/null >>"$dir/log/daemons.out" 2>&1 &
  echo $! >"$dir/supervisor.pid"
  for _ in $(seq 1 300); do
    case "$(answers || true)" in
      idle*) echo "export SLURM_CONF=$conf"; return 0 ;;
    esac
    sleep 0.1
  done
  echo "slurm-local: the node did not become idle in 30 s; logs in $dir/log" >&2
  stop
  exit 1
}

stop() {
  [ -f "$conf" ] || return 0
  # Steps still running would outlive the daemons (slurmstepd stays): cancel every job first.
  if answers >/dev/null; then
    SLURM_CONF=$conf timeout 10 scancel --user="$(id -u)" >/dev/null 2>&1 || true
    for _ in $(seq 1 100); do
      [ -z "$(SLURM_CONF=$conf timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  SLURM_CONF=$conf timeout 10 scontrol shutdown >/dev/null 2>&1 || true
  local supervisor
  supervisor=$(cat "$dir/supervisor.pid" 2>/dev/null || echo)
  if [ -n "$supervisor" ]; then
    for _ in $(seq 1 150); do
      kill -0 "$supervisor" 2>/dev/null || break
      sleep 0.1
    done
    # Still there after 15 s: end the daemons (the supervisor leads their session's group).
    kill -9 -- "-$supervisor" 2>/dev/null || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) [ -f "$conf" ] && answers >/dev/null ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
