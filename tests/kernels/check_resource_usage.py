#!/usr/bin/env python3
"""The device kernels' resources as the compiler left them, checked without a GPU (issue 50, item 6).

Reads `cuobjdump --dump-resource-usage` of the kernels library (libringbench_kernels_cuda.a) and fails,
naming the kernel and its figures, on:

  * any spill, in any kernel. cuobjdump prints no spill-store/load counts (ptxas -v does); a spilled
    register lives in the thread's stack frame, so STACK > 0 is the spill, and LOCAL > 0 (local
    memory outside the frame) is refused with it: in these kernels either means a local-memory round
    trip in the inner loop. The build only warns on spills (kernels/CMakeLists.txt, -warn-spills);
  * the attention kernel (attention_block_kernel<D>, D = 128 and 64) needing more registers than lets
    one CTA of its 256 threads (tiling::kThreads, held to 256 by a static_assert in
    kernels/attention_block.cu) run on an SM, by REGISTER_RULE below.

A dump with no attention kernel, or no function at all, fails too: the names or cuobjdump's format
have changed and the rules would pass by checking nothing. Exit 77 (ctest's SKIP_RETURN_CODE) when no
cuobjdump was found, with the reason; scripts/setup.sh fetches one (scripts/pypi-deps.sh cuobjdump).

  check_resource_usage.py --cuobjdump PATH --library LIB [--threads N]
  check_resource_usage.py --dump FILE [--threads N]      (a saved dump: the parser's tests)
"""

import argparse
import re
import shutil
import subprocess
import sys

SKIP = 77

# REGISTER_RULE. sm_90 (as sm_80 and sm_100) has 65,536 32-bit registers per SM and at most 255 per
# thread, and allocates them per warp in units of 256 registers: a thread's count is rounded up to a
# multiple of 256 / 32 = 8. A CTA of T threads (T / 32 warps) fits on one SM when
#   (T / 32) warps x 32 threads x round_up_8(R) <= 65,536, i.e. round_up_8(R) <= 65,536 / T.
# At T = 256: round_up_8(R) <= 256, so R <= 256, capped by the per-thread maximum: R <= 255.
# Today (nvcc 13.0, sm_90): D = 128 uses 218 -> 224 x 256 = 57,344 of 65,536 (8,192 left: one
# 256-thread CTA of 32 registers, the stamped copy, can run beside it); D = 64 uses 170 -> 176 x 256
# = 45,056. No sm_90 code can use more than 255, so at T = 256 this rule cannot fire: ptxas, held to
# the bound by the kernel's __launch_bounds__(256, 1), spills rather than exceed it, and the spill
# rule is the one that bites. This one bites when the CTA grows (T = 512 allows 128; a static_assert
# ties tiling::kThreads to --threads). Not a rule, printed: the registers a CTA leaves free on its SM
# (at 225 or more a thread, D = 128 would leave no room for a stamped-copy CTA beside it).
REGISTERS_PER_SM = 65536
MAX_REGISTERS_PER_THREAD = 255
REGISTER_UNIT_PER_THREAD = 256 // 32  # a warp's allocation unit, 256 registers, per thread


def round_up(n, unit):
    return (n + unit - 1) // unit * unit


def register_bound(threads):
    """The most registers a thread may use so that one CTA of `threads` threads fits on an SM."""
    per_thread = REGISTERS_PER_SM // threads
    return min(MAX_REGISTERS_PER_THREAD, per_thread // REGISTER_UNIT_PER_THREAD * REGISTER_UNIT_PER_THREAD)


ATTENTION = re.compile(r"attention_block_kernelILi(\d+)E")

# The elf sections of the dump. cuobjdump 13.2's format (the PTX sections have no resource usage):
#   member LIB:attention_block.cu.o:
#   Fatbin elf code:
#   arch = sm_90
#   Resource usage:
#    Function _ZN2rb7kernels...attention_block_kernelILi128EEEvNS0_20AttentionBlockParamsE:
#     REG:218 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:648 TEXTURE:0 SURFACE:0 SAMPLER:0
MEMBER = re.compile(r"^member .*:([^:]+):\s*$")
ARCH = re.compile(r"^arch = (\S+)")
FUNCTION = re.compile(r"^\s*Function (\S+):\s*$")
FIELD = re.compile(r"([A-Z]+(?:\[\d+\])?):(\d+)")


def parse(text):
    """Every function's figures: dicts with member, arch, name (mangled) and the fields (REG, STACK...)."""
    records = []
    member, arch, function = "", "", None
    for line in text.splitlines():
        if m := MEMBER.match(line):
            member, arch, function = m.group(1), "", None
        elif m := ARCH.match(line):
            arch, function = m.group(1), None
        elif m := FUNCTION.match(line):
            function = m.group(1)
        elif function is not None and (fields := FIELD.findall(line)):
            rec = {"member": member, "arch": arch, "name": function}
            rec.update((k, int(v)) for k, v in fields)
            records.append(rec)
            function = None
    return records


def demangle(names):
    """Readable names where c++filt is there; the mangled ones otherwise."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return dict(zip(names, names))
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, check=False).stdout
    readable = out.splitlines()
    return dict(zip(names, readable)) if len(readable) == len(names) else dict(zip(names, names))


def short(readable):
    """`void rb::kernels::(anonymous namespace)::attention_block_kernel<128>(...)` -> `attention_block_kernel<128>`."""
    head = readable.replace("(anonymous namespace)", "").split("(", 1)[0]
    return head.rsplit("::", 1)[-1].split(" ")[-1]


def violations(records, threads):
    """Each broken rule, as one line naming the kernel and its figures."""
    bound = register_bound(threads)
    names = demangle(sorted({r["name"] for r in records}))
    found = []
    if not records:
        return ["no function with resource usage in the dump (cuobjdump's format changed?)"]
    dims = set()
    for r in records:
        who = f"{short(names[r['name']])} ({r['arch']}, {r['member']})"
        if r.get("STACK", 0) or r.get("LOCAL", 0):
            found.append(f"{who}: spills: STACK {r.get('STACK', 0)} bytes, LOCAL {r.get('LOCAL', 0)} bytes "
                         f"(REG {r.get('REG', '?')}); both must be 0")
        if m := ATTENTION.search(r["name"]):
            dims.add(int(m.group(1)))
            reg = r.get("REG")
            if reg is None:
                found.append(f"{who}: no REG figure")
            elif reg > bound:
                found.append(f"{who}: {reg} registers > {bound}, the most that lets one CTA of {threads} threads "
                             f"run on an SM ({threads} x {round_up(reg, REGISTER_UNIT_PER_THREAD)} = "
                             f"{threads * round_up(reg, REGISTER_UNIT_PER_THREAD)} > {REGISTERS_PER_SM})")
    for d in (128, 64):
        if d not in dims:
            found.append(f"attention_block_kernel<{d}> not in the dump (renamed? the rules above checked nothing)")
    return found


def table(records, threads):
    """Every kernel's figures; regs/CTA (rounded per warp) for the attention kernel, whose CTA size is known."""
    names = demangle(sorted({r["name"] for r in records}))
    lines = [f"{'kernel':30} {'arch':6} {'REG':>4} {'regs/CTA':>9} {'STACK':>6} {'LOCAL':>6} {'SHARED':>7}"]
    for r in records:
        reg = r.get("REG", 0)
        per_cta = threads * round_up(reg, REGISTER_UNIT_PER_THREAD) if ATTENTION.search(r["name"]) else "-"
        lines.append(f"{short(names[r['name']]):30} {r['arch']:6} {reg:>4} {per_cta:>9} {r.get('STACK', 0):>6} "
                     f"{r.get('LOCAL', 0):>6} {r.get('SHARED', 0):>7}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cuobjdump", help="cuobjdump to run (empty or *-NOTFOUND: skip)")
    ap.add_argument("--library", help="the kernels library (.a) or any file cuobjdump reads")
    ap.add_argument("--dump", help="read this saved dump instead of running cuobjdump")
    ap.add_argument("--threads", type=int, default=256, help="threads per attention CTA (tiling::kThreads)")
    args = ap.parse_args(argv)
    if args.dump:
        with open(args.dump, encoding="utf-8") as f:
            text = f.read()
        source = args.dump
    else:
        tool = args.cuobjdump or ""
        if not tool or tool.endswith("-NOTFOUND"):
            print("skipped: no cuobjdump (not in the CUDA toolkit; bash scripts/pypi-deps.sh cuobjdump "
                  "fetches one into .deps/cuobjdump, then configure again)")
            return SKIP
        run = subprocess.run([tool, "--dump-resource-usage", args.library], capture_output=True, text=True,
                             check=False)
        if run.returncode != 0:
            print(f"{tool} --dump-resource-usage {args.library} failed ({run.returncode}):\n{run.stderr}")
            return 1
        text = run.stdout
        version = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False).stdout
        release = [line for line in version.splitlines() if "release" in line] or ["version unknown"]
        source = f"{tool} ({release[0].strip()})"
    records = parse(text)
    print(f"resource usage from {source}; register bound for {args.threads} threads per CTA: "
          f"{register_bound(args.threads)}")
    print(table(records, args.threads))
    for r in records:
        if m := ATTENTION.search(r["name"]):
            used = args.threads * round_up(r.get("REG", 0), REGISTER_UNIT_PER_THREAD)
            print(f"attention_block_kernel<{m.group(1)}> ({r['arch']}): {used} of {REGISTERS_PER_SM} registers "
                  f"a CTA, {REGISTERS_PER_SM - used} left beside it on the SM")
    bad = violations(records, args.threads)
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
