#!/usr/bin/env python3
"""Benchmarks/load/rounds.py RESULTS_TSV: the rounds of scripts/bench.sh side by side, and its targets.

In each round ListServer and the C baseline ran on fresh servers, side by side taking turns in short slices (or
one after the other, with --slices 1), so the pair of a round shares the machine's state as closely as this machine
allows: a round's ratio is ListServer's figure over the baseline's in that round. Scenario "aa" pairs the baseline
with a second copy of itself: its ratios are the noise floor of the sitting, what no server can do better than. A target is met when its *worst* round meets it (issue 32): the median alone hid
sittings where ListServer lost every other round. Prints markdown.
"""
import csv
import re
import statistics
import sys
from collections import defaultdict

KEY = re.compile(r"^(?P<scenario>[a-z0-9]+)-(?P<what>[cp]\d+)-t(?P<threads>\d+)-r(?P<round>\d+)-(?P<server>ListServer|baseline2?)$")


def load(path):
    runs = {}
    with open(path, newline="") as file:
        for row in csv.DictReader(file, delimiter="\t"):
            match = KEY.match(row["key"])
            if not match:
                continue  # a run of an older results.tsv, without rounds
            m = match.groupdict()
            group = (m["scenario"], m["what"], int(m["threads"]))
            runs[(group, int(m["round"]), m["server"])] = row
    return runs


def number(row, field):
    try:
        return float(row[field])
    except (KeyError, ValueError):
        return None


def show(value, digits):
    """A number with `digits` decimals, or "-" for one that was not measured."""
    return "-" if value is None else f"{value:.{digits}f}"


def pairs(runs):
    """{group: [(round, subject row, baseline row)]}, rounds in order; the subject is ListServer, or the second
    baseline in scenario "aa"."""
    grouped = defaultdict(list)
    for (group, round_, server), row in runs.items():
        if server != ("baseline2" if group[0] == "aa" else "ListServer"):
            continue
        base = runs.get((group, round_, "baseline"))
        if base is not None:
            grouped[group].append((round_, row, base))
    for group in grouped:
        grouped[group].sort(key=lambda entry: entry[0])
    return grouped


LABELS = {"aa": "C against C (noise floor)", "s1": "1 pages", "s2": "2 cached details", "hit": "image hit", "s3": "3 slow details", "s4": "4 deep pages"}


def describe(group):
    scenario, what, threads = group
    detail = f"{what[1:]} conns" if what[0] == "c" else f"page {what[1:]}"
    return f"{LABELS.get(scenario, scenario)}, {threads} thread{'s' if threads > 1 else ''}, {detail}"


def sort_key(group):
    order = ["aa", "s1", "s2", "hit", "s3", "s4"]
    scenario, what, threads = group
    return (order.index(scenario) if scenario in order else 9, threads, int(what[1:]))


def main():
    runs = load(sys.argv[1])
    grouped = pairs(runs)
    if not grouped:
        print("(no rounds to pair)")
        return
    print("#### Every round: ListServer ÷ the C baseline, fresh servers taking turns")
    print()
    print("| scenario | round | req/s (ListServer / C) | ratio | CPU µs/req (ListServer / C) | ratio | p99 ms (ListServer / C) | other CPU % |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    ratios = {}
    for group in sorted(grouped, key=sort_key):
        rps_ratios, cpu_ratios = [], []
        for round_, ls, base in grouped[group]:
            rps = (number(ls, "req_per_s"), number(base, "req_per_s"))
            cpu = (number(ls, "cpu_us_per_req"), number(base, "cpu_us_per_req"))
            rps_ratio = rps[0] / rps[1] if rps[0] is not None and rps[1] else None
            cpu_ratio = cpu[0] / cpu[1] if cpu[0] is not None and cpu[1] else None
            if rps_ratio is not None:
                rps_ratios.append(rps_ratio)
            if cpu_ratio is not None:
                cpu_ratios.append(cpu_ratio)
            other = f"{ls['other_cpu_pct']} / {base['other_cpu_pct']}"
            print(f"| {describe(group)} | {round_} | {show(rps[0], 0)} / {show(rps[1], 0)} | {show(rps_ratio, 2)} | "
                  f"{show(cpu[0], 1)} / {show(cpu[1], 1)} | {show(cpu_ratio, 2)} | {ls['p99_ms']} / {base['p99_ms']} | "
                  f"{other} |")
        ratios[group] = (rps_ratios, cpu_ratios)
    print()
    print("#### Targets: met when the worst round meets them")
    print()
    print("| target | rounds | median | worst | verdict |")
    print("|---|---:|---:|---:|---|")

    def row(label, values, limit, higher_is_better, digits=2):
        if not values:
            return
        worst = min(values) if higher_is_better else max(values)
        ok = worst >= limit if higher_is_better else worst <= limit
        met = sum(1 for v in values if (v >= limit if higher_is_better else v <= limit))
        print(f"| {label} | {met} of {len(values)} | {statistics.median(values):.{digits}f} | {worst:.{digits}f} | "
              f"{'**pass**' if ok else '**MISS**'} |")

    for group in sorted(grouped, key=sort_key):
        scenario = group[0]
        rps_ratios, cpu_ratios = ratios[group]
        if scenario == "aa":
            # Not ListServer's target: how far the same C server strays from itself in this sitting, shown against
            # the loosest bound s1 must meet, so that a sitting too noisy to judge anything shows as such.
            row(f"{describe(group)}: req/s of C ÷ C ≥ 0.85", rps_ratios, 0.85, True)
            row(f"{describe(group)}: CPU µs/req of C ÷ C ≤ 1.20", cpu_ratios, 1.20, False)
        elif scenario == "s1":
            row(f"{describe(group)}: req/s ≥ 0.85× C", rps_ratios, 0.85, True)
            row(f"{describe(group)}: CPU µs/req ≤ 1.20× C", cpu_ratios, 1.20, False)
        elif scenario in ("s2", "hit"):
            row(f"{describe(group)}: req/s ≥ 0.80× C", rps_ratios, 0.80, True)
            row(f"{describe(group)}: CPU µs/req ≤ 1.25× C", cpu_ratios, 1.25, False)
        elif scenario == "s3":
            efficiency = [number(ls, "efficiency") / number(base, "efficiency")
                          for _, ls, base in grouped[group] if number(base, "efficiency")]
            row(f"{describe(group)}: efficiency ≥ 0.98× C", efficiency, 0.98, True, 3)
            rss = [number(ls, "peak_rss_mb") for _, ls, _ in grouped[group]]
            row(f"{describe(group)}: ListServer's peak RSS ≤ 48 MB", [v for v in rss if v is not None], 48, False, 1)
            if group[1] == "c5000":
                p99 = [number(ls, "p99_ms") for _, ls, _ in grouped[group]]
                row(f"{describe(group)}: ListServer's p99 ≤ 1100 ms", [v for v in p99 if v is not None], 1100,
                    False, 0)
    # s4: each deep page against page 1 of the same server in the same round.
    deep = defaultdict(list)
    for (group, round_, server), row_ in runs.items():
        scenario, what, threads = group
        if scenario != "s4" or server != "ListServer" or what == "p1":
            continue
        first = runs.get((("s4", "p1", threads), round_, "ListServer"))
        if first and number(first, "cpu_us_per_req"):
            deep[(what, threads)].append(number(row_, "cpu_us_per_req") / number(first, "cpu_us_per_req"))
    for (what, threads), values in sorted(deep.items()):
        row(f"4 deep pages, {threads} threads: page {what[1:]} costs ≤ 1.10× page 1 (CPU, same server)", values,
            1.10, False)
    # A second loop must add throughput (issue 3): ListServer's req/s at 64 connections, round by round, the most
    # loops over one.
    loops = sorted({group[2] for (group, _, _) in runs if group[:2] == ("s1", "c64")})
    if len(loops) > 1 and loops[0] == 1:
        gains = []
        for (group, round_, server), row_ in runs.items():
            one = runs.get((("s1", "c64", 1), round_, "ListServer"))
            if group == ("s1", "c64", loops[-1]) and server == "ListServer" and one and number(one, "req_per_s"):
                gains.append(number(row_, "req_per_s") / number(one, "req_per_s"))
        raised = sum(1 for gain in gains if gain > 1)
        if gains:
            print(f"| 1 pages, 64 conns: {loops[-1]} threads raise ListServer's req/s over 1 (> 1.00) | "
                  f"{raised} of {len(gains)} | {statistics.median(gains):.2f} | {min(gains):.2f} | "
                  f"{'**pass**' if raised == len(gains) else '**MISS**'} |")
    errors = {"ListServer": 0, "baseline": 0, "baseline2": 0}
    for (_, _, server), row_ in runs.items():
        errors[server] += int(float(row_["socket_errors"] or 0)) + int(float(row_["non_2xx"] or 0))
    print(f"| no socket errors and no non-2xx answers in any run | {len(runs)} runs | | ListServer {errors['ListServer']}, "
          f"C {errors['baseline'] + errors['baseline2']} | {'**pass**' if errors['ListServer'] == 0 else '**MISS**'} |")


if __name__ == "__main__":
    main()
