"""`cargo xtask bench`, peers: PyPI's binpacking (to_constant_volume) on BPPLIB instances, one JSON line each.

Usage: python peers.py <file list>; each line of the list is "<path>\t<name>". The first line printed
is {"version": ...}, the installed binpacking's version.
"""
import json
import sys
import time
from importlib.metadata import version

import binpacking

print(json.dumps({"version": version("binpacking")}))
with open(sys.argv[1], encoding="utf-8") as listing:
    for line in listing.read().strip().split("\n"):
        path, name = line.split("\t")
        with open(path, encoding="utf-8") as f:
            n, c, *weights = (int(x) for x in f.read().split())
        started = time.perf_counter()
        bins = binpacking.to_constant_volume(weights, c)
        ms = (time.perf_counter() - started) * 1000
        print(json.dumps({"file": name, "n": n, "toConstantVolume": {"bins": len(bins), "ms": ms}}))
