"""bench_ns_torch.py - torch's CPU bf16 Newton-Schulz, timed for tests/bench/bench_ns.m.

usage: /usr/bin/python3 bench_ns_torch.py THREADS ROWSxCOLS[xPAGES]:RUNS ...

The algorithm of muon_ns's standard iteration as the peers write it in torch (Keller's
zeropower_via_newtonschulz5): cast to bf16, normalize by the Frobenius norm, transpose when
rows > cols, 5 steps of A = X X^T; B = b A + c A A; X = a X + B X with keller's coefficients,
every op eager in bf16 (torch's CPU bf16 matmuls run on oneDNN).  A stack of pages runs as one
batched 3-D tensor.  For each shape: one untimed warm-up (unless RUNS is 1), then the best of
RUNS wall-clock times.  Prints one line per shape, "ROWSxCOLSxPAGES SECONDS", then
"torch VERSION threads N".  Exits 2 when torch is missing (the bench then skips it).
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


def main(argv):
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
