#!/usr/bin/env python3
# loggp_plot.py -- draw mempi-loggp's results in the style of the LogGP paper's figures.  MemPI, BSD-3-Clause (see LICENSE).
#
# Reads the file written by `mempi-loggp --raw FILE` (lines
# "<tier> <param> <mode> <size> <value>", tier intra|inter) and writes:
#   PREFIX_overhead.png   o_s and o_r vs message size, one line per send mode
#                         (the paper's Figures 6 and 8-12)
#   PREFIX_bandwidth.png  1/G(k) = k / g(k) in MB/s vs size per mode; for the
#                         intra-node tier this is the paper's 1/S, for the
#                         inter-node tier 1/G (Figures 7 and 13)
#   PREFIX_model.png      measured vs predicted one-way ping-pong time and
#                         the relative error (validation of the model)
# Needs matplotlib (Debian: python3-matplotlib).
import argparse
import collections
import sys

MODES = ["send", "ssend", "bsend", "rsend", "isend", "issend", "ibsend", "irsend"]


def load(path):
    data = collections.defaultdict(dict)     # (tier, param, mode) -> {size: value}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) != 5:
                continue
            tier, param, mode, size, value = p
            try:
                data[(tier, param, mode)][int(size)] = float(value)
            except ValueError:
                pass
    return data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("--out", default="loggp")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("loggp_plot: matplotlib is not installed", file=sys.stderr)
        return 1
    data = load(args.raw)
    tiers = [t for t in ("intra", "inter") if any(k[0] == t for k in data)]
    if not tiers:
        print("loggp_plot: no data in %s" % args.raw, file=sys.stderr)
        return 1
    tier_text = {"intra": "intra-node", "inter": "inter-node"}
    label = (args.label + ", ") if args.label else ""

    def xs_ys(series):
        pts = sorted(series.items())
        return [max(s, 0.5) for s, _ in pts], [v for _, v in pts]

    # overheads: rows = tiers, columns = o_s blocking, o_s nonblocking, o_r
    fig, axes = plt.subplots(len(tiers), 3, figsize=(15, 4.2 * len(tiers)), squeeze=False)
    for row, tier in enumerate(tiers):
        panels = [("o_s", MODES[:4], "send overhead o_s, blocking"),
                  ("o_s", MODES[4:], "send overhead o_s, nonblocking"),
                  ("o_r", MODES, "receive overhead o_r (delayed receive)")]
        for col, (param, modes, title) in enumerate(panels):
            ax = axes[row][col]
            for mode in modes:
                series = data.get((tier, param, mode))
                if series:
                    x, y = xs_ys(series)
                    ax.plot(x, y, marker="o", markersize=3, label=mode)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("message size (bytes)")
            ax.set_ylabel("us")
            ax.set_title("%s%s: %s" % (label, tier_text[tier], title), fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out + "_overhead.png", dpi=80)
    plt.close(fig)

    # bandwidth 1/G(k) (1/S inside a node)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for tier in tiers:
        for mode in MODES:
            series = data.get((tier, "g", mode))
            if not series:
                continue
            pts = sorted((s, s / g) for s, g in series.items() if s > 0 and g > 0)   # bytes/us = MB/s
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3,
                        linestyle="-" if tier == "intra" else "--",
                        label="%s %s" % ({"intra": "1/S", "inter": "1/G"}[tier], mode))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("MB/s (size / gap per message)")
    ax.set_title("%slong-message bandwidth 1/G (1/S intra-node)" % label)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(args.out + "_bandwidth.png", dpi=80)
    plt.close(fig)

    # model validation
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6.5), sharex=True,
                                   gridspec_kw={"height_ratios": [2, 1]})
    for tier in tiers:
        meas = data.get((tier, "pingpong", "measured"), {})
        pred = data.get((tier, "pingpong", "predicted"), {})
        sizes = sorted(set(meas) & set(pred))
        if not sizes:
            continue
        x = [max(s, 0.5) for s in sizes]
        ax1.plot(x, [meas[s] for s in sizes], marker="o", label="%s measured" % tier_text[tier])
        ax1.plot(x, [pred[s] for s in sizes], marker="x", linestyle="--",
                 label="%s LogGP o_s+L+o_r+(k-1)G" % tier_text[tier])
        ax2.plot(x, [100.0 * (pred[s] - meas[s]) / meas[s] for s in sizes], marker="o",
                 label=tier_text[tier])
    ax1.set_xscale("log", base=2)
    ax1.set_yscale("log")
    ax1.set_ylabel("one-way time (us)")
    ax1.set_title("%sping-pong: measured vs LogGP prediction" % label)
    ax1.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=8)
    ax2.axhline(0, color="black", linewidth=0.8)
    ax2.set_ylabel("error (%)")
    ax2.set_xlabel("message size (bytes)")
    ax2.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out + "_model.png", dpi=80)
    plt.close(fig)
    print("wrote %s_overhead.png %s_bandwidth.png %s_model.png" % (args.out, args.out, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
