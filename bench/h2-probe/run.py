#!/usr/bin/env python3
"""Interleaved rounds: each client pinned to core 0 (taskset -c 0) against the one nginx
worker pinned to core 1, same duration; client CPU = user+sys of the client process from
os.wait4 (its children included: taskset execs, so it is the client itself). Also the
nginx worker's CPU over the same run (/proc/PID/stat), the load average, and µs/request.

usage: run.py [--rounds 3] [--secs 5] [--port 18480] [--m 10] [--out results.json]
"""
import argparse, json, os, re, statistics, subprocess, time

p = argparse.ArgumentParser()
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--secs", type=float, default=5)
p.add_argument("--port", type=int, default=18480)
p.add_argument("--m", type=int, default=10)
p.add_argument("--c", type=int, default=50)
p.add_argument("--clients", default="h2load,h2crate,own,own-spin20,own-loona")
p.add_argument("--out", default="results.json")
a = p.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
rel = os.path.join(here, "target", "release")
addr = f"127.0.0.1:{a.port}"
secs = a.secs
common = ["-c", str(a.c), "-m", str(a.m)]
clients = {
    "h2load": ["h2load", *common, "-t", "1", "-D", str(int(secs)), f"http://{addr}/hello"],
    "h2crate": [f"{rel}/h2crate", "--addr", addr, *common, "-D", str(secs)],
    "own": [f"{rel}/own", "--addr", addr, *common, "-D", str(secs)],
    "own-spin20": [f"{rel}/own", "--addr", addr, *common, "-D", str(secs), "--spin-us", "20"],
    "own-defer": [f"{rel}/own", "--addr", addr, *common, "-D", str(secs), "--defer-writes"],
    "own-loona": [f"{rel}/own", "--addr", addr, *common, "-D", str(secs), "--hpack", "loona"],
}
names = a.clients.split(",")


def nginx_worker():
    pid = int(open("/tmp/h2probe-nginx/nginx.pid").read())
    kids = subprocess.check_output(["pgrep", "-P", str(pid)]).split()
    assert len(kids) == 1, kids
    return int(kids[0])


def proc_cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(f[11]) + int(f[12])) / tick


def ok_count(name, out):
    if name == "h2load":
        m = re.search(r"requests: .*? (\d+) succeeded", out)
    else:
        m = re.search(r"\bok=(\d+)", out)
    return int(m.group(1)) if m else 0


def run(name):
    worker = nginx_worker()
    n0 = proc_cpu(worker)
    load = open("/proc/loadavg").read().split()[0]
    t0 = time.monotonic()
    proc = subprocess.Popen(["timeout", str(int(secs) + 20), "taskset", "-c", "0", *clients[name]],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    n1 = proc_cpu(worker)
    ok = ok_count(name, out)
    return {
        "client": name, "ok": ok, "user": ru.ru_utime, "sys": ru.ru_stime, "wall": wall,
        "status": status, "nginx_cpu": n1 - n0, "load1": float(load),
        "us_per_req": (ru.ru_utime + ru.ru_stime) / ok * 1e6 if ok else None,
        "user_us_per_req": ru.ru_utime / ok * 1e6 if ok else None,
        "sys_us_per_req": ru.ru_stime / ok * 1e6 if ok else None,
        "req_per_s": ok / secs, "nginx_us_per_req": (n1 - n0) / ok * 1e6 if ok else None,
        "nvcsw": ru.ru_nvcsw, "nvcsw_per_req": ru.ru_nvcsw / ok if ok else None, "out_tail": out.strip().splitlines()[-3:],
    }


rows = []
for r in range(a.rounds):
    order = names[r % len(names):] + names[:r % len(names)]  # rotate the order each round
    for name in order:
        row = run(name)
        row["round"] = r + 1
        rows.append(row)
        print(f"round {r+1} {name:10} ok={row['ok']:>8} user={row['user']:.2f}s sys={row['sys']:.2f}s "
              f"cpu/req={row['us_per_req']:.2f}us (user {row['user_us_per_req']:.2f}, sys {row['sys_us_per_req']:.2f}) "
              f"cs/req={row['nvcsw_per_req']:.3f} nginx/req={row['nginx_us_per_req']:.2f}us req/s={row['req_per_s']:.0f} load1={row['load1']}", flush=True)
        time.sleep(1)

print()
print(f"medians over {a.rounds} rounds, -c {a.c} -m {a.m}, {secs:g} s each")
# The ratio to h2load is taken within each round (same minute of machine noise), then the median.
for x in rows:
    base = [y for y in rows if y["round"] == x["round"] and y["client"] == "h2load"]
    x["ratio"] = x["us_per_req"] / base[0]["us_per_req"] if base else None
print(f"| client | CPU µs/req (user+sys) | user µs/req | sys µs/req | ratio to h2load (per round, median) | sleeps/req | nginx req/s | nginx CPU µs/req |")
print(f"|---|---|---|---|---|---|---|---|")
med = {}
for name in names:
    rs = [x for x in rows if x["client"] == name]
    med[name] = {k: statistics.median(x[k] for x in rs) for k in
                 ["us_per_req", "user_us_per_req", "sys_us_per_req", "req_per_s", "nginx_us_per_req", "nvcsw_per_req"]}
for name in names:
    m = med[name]
    rs = [x["ratio"] for x in rows if x["client"] == name and x["ratio"] is not None]
    ratio = statistics.median(rs) if rs else float("nan")
    m["ratio"] = ratio
    print(f"| {name} | {m['us_per_req']:.2f} | {m['user_us_per_req']:.2f} | {m['sys_us_per_req']:.2f} | "
          f"{ratio:.2f}x [{min(rs):.2f}-{max(rs):.2f}] | {m['nvcsw_per_req']:.3f} | {m['req_per_s']:.0f} | {m['nginx_us_per_req']:.2f} |")
json.dump({"args": vars(a), "rows": rows, "medians": med}, open(os.path.join(here, a.out), "w"), indent=1)
