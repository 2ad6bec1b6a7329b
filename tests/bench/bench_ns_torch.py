# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

"""bench_ns_torch.py - the peers' Newton-Schulz in torch, timed for tests/bench/bench_ns.m (CPU)
and tests/gpu/bench_gpu.m (CUDA).

usage: /usr/bin/python3 bench_ns_torch.py THREADS ROWSxCOLS[xPAGES]:RUNS ...
       python3 bench_ns_torch.py --device cuda ROWSxCOLS[xPAGES]:RUNS ...

The algorithm of muon_ns's standard iteration as the peers write it in torch (Keller's
zeropower_via_newtonschulz5): cast to bf16, normalize by the Frobenius norm, transpose when
rows > cols, 5 steps of A = X X^T; B = b A + c A A; X = a X + B X with keller's coefficients,
every op eager in bf16 (torch's CPU bf16 matmuls run on oneDNN).  A stack of pages runs as one
batched 3-D tensor.  For each shape: one untimed warm-up (unless RUNS is 1), then the best of
RUNS wall-clock times.  Prints one line per shape, "ROWSxCOLSxPAGES SECONDS", then
"torch VERSION threads N".  Exits 2 when torch is missing (the bench then skips it).

With --device cuda every input lives on the GPU (no copies are timed) and each peer is timed
with CUDA events around the call: one warm-up (compiled peers: until compiled), then the
median of RUNS calls, in ms.  The peers: Keller's NS as written above ("keller", bf16),
torch.optim.Muon's own NS ("torch_muon", torch.optim._muon, page by page), and Dao's
gram-newton-schulz package when importable ("dao_standard", "dao_gram", pure torch:
ns_use_kernels=False, keller's five triples, restart [2]; eager and torch.compile'd, the
compiled rows suffixed "_compiled").  One line per peer and shape, "PEER ROWSxCOLSxPAGES MS",
or "PEER ROWSxCOLSxPAGES unavailable: WHY"; then "torch VERSION cuda DEVICE".
"""
import sys
import time

try:
    import torch
except ImportError:
    sys.exit(2)


def newton_schulz5(G, steps=5):
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.bfloat16()
    transposed = G.size(-2) > G.size(-1)
    if transposed:
        X = X.mT
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + c * A @ A
        X = a * X + B @ X
    if transposed:
        X = X.mT
    return X


KELLER = [(3.4445, -4.7750, 2.0315)] * 5


def cuda_median_ms(fn, G, runs):
    """Median device time of fn(G) in ms, CUDA events around each call, after a warm-up."""
    for _ in range(2):
        fn(G)
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(G)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    half = len(times) // 2   # the median: of an even count, the mean of the two middle ones
    return times[half] if len(times) % 2 else (times[half - 1] + times[half]) / 2


def peers():
    """(name, callable on a (pages, rows, cols) or (rows, cols) tensor) for each peer here."""
    out = [("keller", newton_schulz5)]
    try:
        from torch.optim._muon import _zeropower_via_newtonschulz as zp

        def torch_muon(G):
            pages = G if G.dim() == 3 else G.unsqueeze(0)
            return [zp(g, KELLER[0], 5, 1e-7) for g in pages]
        out.append(("torch_muon", torch_muon))
    except ImportError as e:
        out.append(("torch_muon", "unavailable: %s" % e))
    try:
        import gram_newton_schulz as gns
    except ImportError as e:
        for n in ("dao_standard", "dao_gram"):
            out.append((n, "unavailable: %s" % e))
        return out
    for compiled in (False, True):
        suffix = "_compiled" if compiled else ""
        for name, cls, extra in (("dao_standard", "StandardNewtonSchulz", {}),
                                 ("dao_gram", "GramNewtonSchulz",
                                  {"gram_newton_schulz_reset_iterations": [2]})):
            kw = dict(ns_use_kernels=False, ns_coefficients=[list(t) for t in KELLER], **extra)
            if not compiled:
                kw["compile_kwargs"] = None
            try:
                out.append((name + suffix, getattr(gns, cls)(**kw)))
            except Exception as e:          # another version's signature
                out.append((name + suffix, "unavailable: %s" % e))
    return out


def main_cuda(specs):
    dev = torch.device("cuda")
    torch.manual_seed(42)
    table = peers()
    for spec in specs:
        shape, runs = spec.split(":")
        dims = [int(d) for d in shape.split("x")]
        rows, cols, pages = dims[0], dims[1], dims[2] if len(dims) > 2 else 1
        G = torch.randn(pages, rows, cols, device=dev) if pages > 1 else \
            torch.randn(rows, cols, device=dev)
        for name, fn in table:
            label = "%s %dx%dx%d" % (name, rows, cols, pages)
            if isinstance(fn, str):
                print(label, fn, flush=True)
                continue
            try:
                print(label, "%.4f" % cuda_median_ms(fn, G, max(int(runs), 10)), flush=True)
            except Exception as e:
                print(label, "unavailable: %s" % str(e).splitlines()[0][:200], flush=True)
        del G
        torch.cuda.empty_cache()
    print("torch %s cuda %s" % (torch.__version__, torch.cuda.get_device_name(0)))


def main(argv):
    if argv[1] == "--device":
        if argv[2] != "cuda" or not torch.cuda.is_available():
            sys.exit(3)
        return main_cuda(argv[3:])
    threads = int(argv[1])
    torch.set_num_threads(threads)
    torch.manual_seed(42)
    for spec in argv[2:]:
        shape, runs = spec.split(":")
        dims = [int(d) for d in shape.split("x")]
        rows, cols, pages = dims[0], dims[1], dims[2] if len(dims) > 2 else 1
        G = torch.randn(pages, rows, cols) if pages > 1 else torch.randn(rows, cols)
        runs = int(runs)
        if runs > 1:
            newton_schulz5(G)
        best = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            newton_schulz5(G)
            best = min(best, time.perf_counter() - t0)
        print("%dx%dx%d %.6f" % (rows, cols, pages, best), flush=True)
    print("torch %s threads %d" % (torch.__version__, torch.get_num_threads()))


if __name__ == "__main__":
    main(sys.argv)
