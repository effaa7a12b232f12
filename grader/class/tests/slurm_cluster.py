"""A single-node Slurm cluster for a test, from Debian's packages (slurm-wlm, munge), started as root in a
temporary folder and stopped, whatever happens, when the `with` block ends.

    with SlurmCluster() as cluster:        # raises Unavailable (with why) where it cannot start
        subprocess.run(["sinfo"], env=cluster.env)

Everything lives in the temporary folder: the munge key and munged's socket, slurm.conf (one CPU-only node named
after `hostname -s`, the controller and slurmd on free ports, state, spool and logs), and the job completion log
that `sacct -c` reads: without slurmdbd, Slurm 22.05 keeps no accounting, and that log is all sacct has.
Nothing under /etc is read or written; the clients find the cluster through SLURM_CONF (cluster.env).
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time

PACKAGES = ["slurm-wlm", "munge"]
DAEMONS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "sacct", "scancel"]


class Unavailable(Exception):
    """The cluster cannot run here; the message says why (the test skips with it)."""


def ensure_packages():
    """Installs slurm-wlm and munge with apt-get where a program is missing (as root only)."""
    missing = [d for d in DAEMONS if shutil.which(d) is None and not os.path.exists("/usr/sbin/" + d)]
    if not missing:
        return
    if os.geteuid() != 0:
        raise Unavailable(f"{', '.join(missing)} missing, and installing {' '.join(PACKAGES)} needs root")
    if shutil.which("apt-get") is None:
        raise Unavailable(f"{', '.join(missing)} missing, and this is no Debian machine (no apt-get)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print(f"installing {' '.join(PACKAGES)} (missing: {', '.join(missing)})", flush=True)
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + PACKAGES):
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise Unavailable(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sbin(name):
    return shutil.which(name) or "/usr/sbin/" + name


class SlurmCluster:
    def __init__(self, partition="grading"):
        self.partition = partition
        self.dir = None
        self.processes = []
        self.env = None

    def __enter__(self):
        if os.geteuid() != 0:
            raise Unavailable("starting slurmctld, slurmd and munged needs root")
        ensure_packages()
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_):
        self.stop()

    def log(self, name):
        path = os.path.join(self.dir, name)
        return open(path, errors="replace").read() if os.path.exists(path) else ""

    def _spawn(self, name, argv):
        out = open(os.path.join(self.dir, name + ".out"), "w")
        self.processes.append(subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=self.env))

    def _start(self):
        # munged refuses a socket in a folder that others cannot search: 0755, not mkdtemp's 0700.
        self.dir = tempfile.mkdtemp(prefix="gpulab-slurm-")
        os.chmod(self.dir, 0o755)
        d = self.dir
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(d, sub))
        key, sock = os.path.join(d, "munge.key"), os.path.join(d, "munge.socket")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.env = dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf"))
        self._spawn("munged", [sbin("munged"), "--foreground", "--force", f"--key-file={key}", f"--socket={sock}",
                               f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"])
        self._wait_for(lambda: os.path.exists(sock), "munged did not create its socket", "munged.out")

        host = socket.gethostname().split(".")[0]
        # The node as slurmd sees this machine (CPUs, sockets, cores, threads), its memory left to Slurm's default.
        probe = subprocess.run([sbin("slurmd"), "-C"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        node = next((line for line in probe.stdout.splitlines() if line.startswith("NodeName=")), None)
        if node is None:
            raise Unavailable(f"slurmd -C did not describe this machine:\n{probe.stdout}")
        node = " ".join(w for w in node.split() if not w.startswith(("NodeName=", "RealMemory=")))
        self.cpus = int(next(w for w in node.split() if w.startswith("CPUs=")).split("=")[1])
        conf = f"""ClusterName=gpulabtest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={d}/jobcomp.txt
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
KillWait=5
MailProg=/bin/true
NodeName={host} NodeAddr=127.0.0.1 {node} State=UNKNOWN
PartitionName={self.partition} Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(conf)
        self._spawn("slurmctld", [sbin("slurmctld"), "-D", "-f", self.env["SLURM_CONF"]])
        self._spawn("slurmd", [sbin("slurmd"), "-D", "-f", self.env["SLURM_CONF"], "-N", host])

        def idle():
            out = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True).stdout.split()
            return out and out[0] in ("idle", "mix", "alloc")
        self._wait_for(idle, "the node did not come up idle", "slurmctld.log")

    def _wait_for(self, ready, what, log, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if ready():
                return
            if any(p.poll() is not None for p in self.processes):
                break
            time.sleep(0.2)
        tail = "\n".join(self.log(log).splitlines()[-15:])
        raise Unavailable(f"{what}; the end of {log}:\n{tail}")

    def stop(self):
        """Kills what it started (slurmstepd and jobs go with slurmd's cancel first) and removes the folder."""
        if self.env and self.processes:
            # Jobs first, so that their processes (slurmstepd's children) end before slurmd does.
            subprocess.run(["scancel", "--full", "--quiet", "-u", "root"], env=self.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
            deadline = time.time() + 15
            while time.time() < deadline and subprocess.run(
                    ["squeue", "-h", "-t", "running,completing"], env=self.env, stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL, text=True, timeout=20).stdout.strip():
                time.sleep(0.5)
        for p in reversed(self.processes):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.processes = []
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
