"""Counts the linalg.generic ops of a module, the largest operand
descriptor bytes of any ((3 + 2 * rank) * 8 per operand: a CUDA kernel's
parameters), and how many distinct function arguments their ins read."""
import re
import sys

text = open(sys.argv[1]).read()
generics = re.findall(r"linalg\.generic \{[^}]*\} ins\(([^:]*): ([^)]*)\) outs\(([^:]*): ([^)]*)\)", text)


def descriptor_bytes(types):
    ranks = [t.count("x") + (0 if re.match(r"tensor<[a-z0-9]+>$", t.strip()) else 1)
             for t in re.findall(r"tensor<[^>]*>", types)]
    return sum(8 * (3 + 2 * r) for r in ranks)


most = max(descriptor_bytes(ins_t) + descriptor_bytes(outs_t) for _, ins_t, _, outs_t in generics)
args = set()
for ins, _, _, _ in generics:
    args.update(v.strip() for v in ins.split(",") if v.strip().startswith("%a"))
print("generics %d, inputs read %d, most descriptor bytes %s 4000" % (
    len(generics), len(args), "<=" if most <= 4000 else ">"))
