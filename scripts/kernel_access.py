"""How the memory accesses of generated GPU kernels coalesce, read from the IR.

Used by scripts/kernel-shapes.py (`--access`). For every `gpu.func` of the
outlined kernels, the index arithmetic is evaluated for the 32 lanes of the
first warp of the first block: each `memref.load`/`store` (and
`vector.load`/`store`) then has 32 addresses, and the number of 32-byte
sectors they touch is what one warp's instruction costs the memory system.
A warp whose lanes read 32 consecutive floats touches 4 sectors (128 bytes,
all used); 32 lanes reading down a column touch 32 sectors, of which they
use 4 bytes each (12.5%).

What is evaluated: `arith` integer ops, `affine.apply/min/max`, the gpu ids
and dims (block 0; thread ids from the lane and the block size), `scf.for`
(its first iteration, weighted by its trip count), `scf.if` (each branch on
the lanes that take it). An integer loaded from memory (a token id, a
gather index) is a fixed function of its address, so lanes that read the
same index get the same value. Floats are not evaluated. Shared
(workgroup) memory is not counted.

Each kernel's estimate: sector bytes = sum over its accesses of sectors x
32 x trip counts x warps of the launch (every warp assumed like the first).
That is what the SMs ask of L1/L2 (a lower bound of DRAM traffic only when
nothing is re-read); `coalesced` = bytes the lanes use / sector bytes.
"""
import re

ELEMENT_BYTES = {"f64": 8, "i64": 8, "index": 8, "f32": 4, "i32": 4,
                 "bf16": 2, "f16": 2, "i16": 2, "i8": 1, "i1": 1}
LANES = 32
SECTOR = 32

FUNC = re.compile(r"^\s*gpu\.func @([\w$.]+)\((.*?)\)(?:\s*workgroup\(.*?\))?"
                  r"\s*kernel attributes \{(.*)\} \{\s*$")
RESULT = re.compile(r"^\s*(%[\w$.#-]+)(?::(\d+))?(?:,\s*(%[\w$.#-]+))*\s*=\s*(.*)$")
OPERAND = re.compile(r"%[\w$.#-]+")
MAP_DEF = re.compile(r"^(#[\w$.]+)\s*=\s*affine_map<(.*)>\s*$")


class Memref:
    """Shape, strides, offset and element size of a memref type."""

    def __init__(self, text):
        m = re.match(r"memref<([^,>]*)(?:,\s*(.*))?>", text.strip())
        dims = m.group(1).split("x")
        self.elem = ELEMENT_BYTES.get(dims[-1], 4)
        self.shape = [int(d) if d != "?" else None for d in dims[:-1]]
        self.offset = 0
        self.strides = None
        layout = m.group(2) or ""
        s = re.search(r"strided<\[([^\]]*)\](?:,\s*offset:\s*(\w+|\?))?>",
                      layout)
        if s:
            self.strides = [int(x) if x.strip() not in ("?", "") else None
                            for x in s.group(1).split(",")] if s.group(1) else []
            if s.group(2) and s.group(2) != "?":
                self.offset = int(s.group(2))
        if self.strides is None:
            self.strides, run = [], 1
            for d in reversed(self.shape):
                self.strides.insert(0, run)
                run *= d if d is not None else 1

    def address(self, indices):
        if None in indices or None in self.strides:
            return None
        return (self.offset +
                sum(i * s for i, s in zip(indices, self.strides))) * self.elem


class AffineMap:
    def __init__(self, text):
        m = re.match(r"\(([^)]*)\)(?:\[([^\]]*)\])?\s*->\s*\((.*)\)\s*$",
                     text.strip())
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        syms = [s.strip() for s in (m.group(2) or "").split(",") if s.strip()]
        results = split_top(m.group(3))
        names = dims + syms
        self.arity = len(names)
        self.fns = []
        for r in results:
            expr = r.replace("ceildiv", "@").replace("floordiv", "//") \
                    .replace("mod", "%")
            expr = re.sub(r"(\S+)\s*@\s*(\S+)", r"(-((-\1)//\2))", expr)
            self.fns.append(eval("lambda " + ",".join(names or ["_"]) +
                                 ": " + expr))

    def __call__(self, args):
        if None in args:
            return [None] * len(self.fns)
        return [f(*args) if args else f(0) for f in self.fns]


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([<":
            depth += 1
        elif ch in ")]>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


class Op:
    def __init__(self, line):
        self.line = line.strip()
        self.regions = []


def parse_body(lines, i):
    """Ops until the closing brace of the current region; returns (ops, i)."""
    ops = []
    while i < len(lines):
        text = lines[i].strip()
        if text.startswith("}"):
            return ops, i
        op = Op(text)
        i += 1
        if text.endswith("{"):
            while True:
                body, i = parse_body(lines, i)
                op.regions.append(body)
                closing = lines[i].strip()
                i += 1
                if not closing.endswith("{"):
                    break
        ops.append(op)
    return ops, i


def lanewise(fn, *vals):
    out = []
    for lane in range(LANES):
        args = [v[lane] if isinstance(v, list) else v for v in vals]
        out.append(None if None in args else fn(*args))
    return out


def uniform(v):
    return v if isinstance(v, list) else [v] * LANES


BINARY = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b if b else None,
    "arith.divsi": lambda a, b: int(a / b) if b else None,
    "arith.floordivsi": lambda a, b: a // b if b else None,
    "arith.ceildivui": lambda a, b: -(-a // b) if b else None,
    "arith.ceildivsi": lambda a, b: -(-a // b) if b else None,
    "arith.remui": lambda a, b: a % b if b else None,
    "arith.remsi": lambda a, b: a - b * int(a / b) if b else None,
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b,
    "arith.shrui": lambda a, b: a >> b,
    "arith.shrsi": lambda a, b: a >> b,
    "arith.minui": min, "arith.minsi": min,
    "arith.maxui": max, "arith.maxsi": max,
}
CMP = {"eq": lambda a, b: int(a == b), "ne": lambda a, b: int(a != b),
       "ult": lambda a, b: int(a < b), "slt": lambda a, b: int(a < b),
       "ule": lambda a, b: int(a <= b), "sle": lambda a, b: int(a <= b),
       "ugt": lambda a, b: int(a > b), "sgt": lambda a, b: int(a > b),
       "uge": lambda a, b: int(a >= b), "sge": lambda a, b: int(a >= b)}
IDENTITY = ("arith.index_cast", "arith.index_castui", "arith.extui",
            "arith.extsi", "arith.trunci")


class Kernel:
    def __init__(self, name, args, attrs, body, maps):
        self.name = name
        self.maps = maps
        self.block = self._sizes(attrs, "known_block_size")
        self.grid = self._sizes(attrs, "known_grid_size")
        self.types = {}
        for a in split_top(args):
            n, t = a.split(":", 1)
            self.types[n.strip()] = t.strip()
        self.body = body
        self.accesses = []   # (line, bytes used, sectors, weight, store)
        # Per loop body (None: outside loops): its weight, and the sectors
        # and bytes all its accesses touch in one iteration. A warp's
        # accesses to the same sector in one iteration (the 4 bf16 loads of
        # a thread that computes 4 consecutive points) reach L2 once.
        self.contexts = {}
        self.context = [None]

    @staticmethod
    def _sizes(attrs, key):
        m = re.search(key + r" = array<i32: (\d+), (\d+), (\d+)>", attrs)
        return [int(x) for x in m.groups()] if m else None

    def run(self):
        if not self.block or not self.grid:
            return False
        env = {}
        bx, by, _ = self.block
        lanes = [(l % bx, (l // bx) % by, l // (bx * by)) for l in range(LANES)]
        self.active = [l < bx * by * self.block[2] for l in range(LANES)]
        env["thread_id x"] = [t[0] for t in lanes]
        env["thread_id y"] = [t[1] for t in lanes]
        env["thread_id z"] = [t[2] for t in lanes]
        self.eval(self.body, env, self.active, 1.0)
        return True

    def value(self, env, name):
        return env.get(name)

    def eval(self, ops, env, mask, weight):
        for op in ops:
            self.eval_op(op, env, mask, weight)

    def eval_op(self, op, env, mask, weight):
        m = RESULT.match(op.line)
        results, rest = ([], op.line)
        if m:
            results = [r.strip() for r in
                       op.line.split("=", 1)[0].split(",")]
            rest = m.group(4)
            if m.group(2):
                results = [f"{results[0].split(':')[0]}#{k}"
                           for k in range(int(m.group(2)))]
        name = rest.split()[0] if rest.split() else ""
        operands = OPERAND.findall(rest)
        get = lambda o: env.get(o)
        out = None
        if name in ("gpu.thread_id", "gpu.block_id", "gpu.block_dim",
                    "gpu.grid_dim"):
            dim = rest.split()[1]
            axis = "xyz".index(dim)
            out = {"gpu.thread_id": env.get("thread_id " + dim),
                   "gpu.block_id": 0,
                   "gpu.block_dim": self.block[axis],
                   "gpu.grid_dim": self.grid[axis]}[name]
        elif name == "arith.constant":
            c = re.match(r"arith\.constant\s+(-?\d+)\s*:\s*(index|i\d+)",
                         rest)
            if c:
                out = int(c.group(1)) if c.group(2) != "i1" else \
                    int(c.group(1)) & 1
            elif re.match(r"arith\.constant\s+(true|false)", rest):
                out = int("true" in rest.split()[1])
        elif name in BINARY and len(operands) == 2:
            out = lanewise(BINARY[name], get(operands[0]), get(operands[1]))
        elif name in IDENTITY:
            out = get(operands[0])
        elif name == "arith.cmpi":
            pred = rest.split()[1].rstrip(",")
            out = lanewise(CMP[pred], get(operands[0]), get(operands[1]))
        elif name == "arith.select":
            out = lanewise(lambda c, a, b: a if c else b,
                           *[get(o) for o in operands[:3]])
        elif name in ("affine.apply", "affine.min", "affine.max"):
            out = self.affine(rest, env, name)
        elif name in ("memref.load", "vector.load", "memref.store",
                      "vector.store"):
            out = self.access(name, rest, operands, env, mask, weight)
        elif name == "scf.for":
            self.loop(rest, operands, env, mask, weight, op)
            return
        elif name == "scf.if":
            cond = uniform(get(operands[0]))
            for k, region in enumerate(op.regions):
                sub = [m_ and (c is None or bool(c) == (k == 0))
                       for m_, c in zip(mask, cond)]
                if any(sub):
                    self.eval(region, env, sub, weight)
            return
        else:
            for region in op.regions:
                self.eval(region, env, mask, weight)
        if results and out is not None:
            env[results[0]] = out

    def affine(self, rest, env, name):
        m = re.match(r"affine\.\w+\s+(#[\w$.]+|affine_map<.*?>)\s*"
                     r"\(([^)]*)\)(?:\[([^\]]*)\])?", rest)
        if not m:
            return None
        key = m.group(1)
        amap = self.maps.get(key)
        if amap is None:
            amap = AffineMap(key[len("affine_map<"):-1])
        args = OPERAND.findall(m.group(2)) + OPERAND.findall(m.group(3) or "")
        vals = [uniform(env.get(a)) for a in args]
        out = []
        for lane in range(LANES):
            r = amap([v[lane] for v in vals])
            if name == "affine.min":
                r = [min(r)] if None not in r else [None]
            elif name == "affine.max":
                r = [max(r)] if None not in r else [None]
            out.append(r[0])
        return out

    def access(self, name, rest, operands, env, mask, weight):
        store = name.endswith("store")
        t = re.search(r":\s*(memref<[^>]*(?:<[^>]*>[^>]*)?>)(?:,\s*vector<(\d+)x)?",
                      rest)
        if not t:
            return None
        if "workgroup" in t.group(1):
            return None  # shared memory: not the memory system's sectors
        mref = Memref(t.group(1))
        width = mref.elem * (int(t.group(2)) if t.group(2) else 1)
        base = 1 if store else 0
        idx = re.search(r"\[(.*?)\]", rest)
        indices = OPERAND.findall(idx.group(1)) if idx else []
        vals = [uniform(env.get(i)) for i in indices]
        sectors, touched, unknown = set(), set(), False
        ctx = self.contexts.setdefault(self.context[-1],
                                       [weight, set(), set()])
        loaded = []
        for lane in range(LANES):
            addr = mref.address([v[lane] for v in vals])
            loaded.append(None if addr is None else
                          (hash((operands[base], addr)) & 0xffff))
            if not mask[lane]:
                continue
            if addr is None:
                unknown = True
                continue
            touched.add((addr, width))
            for s in range(addr // SECTOR, (addr + width - 1) // SECTOR + 1):
                sectors.add((operands[base], s, store))
        # Bytes the lanes use: each distinct address once (lanes reading
        # the same value share it). A store to what was read (an update in
        # place) is a transfer of its own: the read brings the sector in,
        # the write sends it back.
        used_bytes = {(operands[base], a + i, store) for a, w in touched
                      for i in range(w)}
        used = len(used_bytes)
        if unknown:
            sectors_n, used = LANES * max(1, width // SECTOR), LANES * width
            sectors = {(rest, lane, k) for lane in range(LANES)
                       for k in range(max(1, width // SECTOR))}
            used_bytes = {(rest, i) for i in range(used)}
        else:
            sectors_n = len(sectors)
        ctx[1] |= sectors
        ctx[2] |= used_bytes
        self.accesses.append((rest.split(":")[0].strip(), used,
                              sectors_n, weight, store))
        if not store and re.search(r"\]\s*:\s*memref<[^>]*x(i\d+|index)>",
                                   rest) and name == "memref.load":
            return loaded
        return None

    def loop(self, rest, operands, env, mask, weight, op):
        m = re.match(r"scf\.for\s+(%[\w$.#-]+)\s*=\s*(%[\w$.#-]+)\s+to\s+"
                     r"(%[\w$.#-]+)\s+step\s+(%[\w$.#-]+)", rest)
        if not m:
            return
        iv, lb, ub, st = m.groups()
        lbv, ubv, stv = (uniform(env.get(x)) for x in (lb, ub, st))
        sub = []
        trips = 0
        for lane in range(LANES):
            l, u, s = lbv[lane], ubv[lane], stv[lane]
            if None in (l, u, s) or s <= 0:
                sub.append(mask[lane])
                continue
            n = max(0, -(-(u - l) // s))
            sub.append(mask[lane] and n > 0)
            if mask[lane]:
                trips = max(trips, n)
        if not any(sub):
            return
        env[iv] = lbv
        self.context.append(id(op))
        for k, region in enumerate(op.regions):
            self.eval(region, env, sub, weight * max(trips, 1))
        self.context.pop()

    def summary(self):
        """(sector bytes, used bytes, requested sector bytes) of one launch,
        all warps: the distinct sectors each loop iteration of a warp
        touches, the distinct bytes its lanes use, and the sectors of each
        access counted apart (what L1 serves)."""
        warps = 1
        for d in self.grid:
            warps *= d
        threads = self.block[0] * self.block[1] * self.block[2]
        warps *= -(-threads // LANES)
        sector_bytes = sum(len(s) * SECTOR * w
                           for w, s, _ in self.contexts.values())
        used = sum(len(u) * w for w, _, u in self.contexts.values())
        requested = sum(s * SECTOR * w for _, _, s, w, _ in self.accesses)
        return sector_bytes * warps, used * warps, requested * warps

    def worst(self, n=3):
        rows = sorted(self.accesses,
                      key=lambda a: -(a[2] * SECTOR - a[1]) * a[3])
        return rows[:n]


def analyze(path):
    """{kernel name: Kernel} for the gpu.funcs of the file at path."""
    with open(path) as f:
        lines = []
        for line in f:
            if line.startswith("{-#"):
                break
            lines.append(line.rstrip("\n"))
    maps = {}
    for line in lines:
        m = MAP_DEF.match(line)
        if m:
            maps[m.group(1)] = AffineMap(m.group(2))
    kernels = {}
    i = 0
    while i < len(lines):
        m = FUNC.match(lines[i])
        if not m:
            i += 1
            continue
        body, i = parse_body(lines, i + 1)
        k = Kernel(m.group(1), m.group(2), m.group(3), body, maps)
        if k.run():
            kernels[k.name] = k
        i += 1
    return kernels
