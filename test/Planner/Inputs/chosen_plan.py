"""Prints the dist-compile flags of the plan --parallel=auto chose, from its
--explain output: the line '1. dp,tp zero=1 ...  <- chosen' gives
'--parallel=dp,tp --zero=1' (and --microbatches=M with pp, --remat=P,
--precision=T, --grad-compression=C); the
layer search's '1. 2x2 dp,tp ...' also gives '--mesh=2x2'."""
import re
import sys

for line in open(sys.argv[1]):
    if line.rstrip().endswith("<- chosen"):
        fields = line.split()[1:]
        flags = []
        if re.match(r"\d+(x\d+)*$", fields[0]):
            flags.append("--mesh=" + fields.pop(0))
        flags.append("--parallel=" + fields[0])
        for word in fields[1:]:
            m = re.match(r"(zero|microbatches|remat|precision|grad-compression)=([\w:.]+)$", word)
            if not m:
                break
            flags.append("--%s=%s" % m.groups())
        print(" ".join(flags))
        break
else:
    sys.exit("no chosen plan in " + sys.argv[1])
