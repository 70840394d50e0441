#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A host TU built with TILE2BUFFER_EXTERN_PIPELINE compiles none of the library's machinery.

    extern_host_symbols.py COMPILER NM HOST.cpp

Compiles HOST.cpp (examples/04_host_compiler.cpp: parse, verify, explain the selection, lower,
compare, print) with `-DTILE2BUFFER_EXTERN_PIPELINE=1 -O0 -c` (where every inline function it calls is emitted) and reads the object's symbols:
it must define nothing of the parser, printer, verifier, structural comparison, binary reader and
writer, PTO emitter or pipeline, and it must call the library's compiled functions instead. Why a
symbol check and not a timing: what makes such a TU cost 8 s instead of 3 is exactly these
instantiations (benchmarks/compile_time.py measures the time; this proves the cause is gone).
A header-only twin must define them, so the check can fail.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

REPO_INCLUDE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "include")

# Machinery whose definition in a host object means it was instantiated there. "detail::parser"
# without "::" also names the parser's layers (detail::parser_tokens, parser_types, parser_ops:
# text/parse_tokens.hpp).
MACHINERY = ["detail::parser", "detail::printer::", "detail::function_verifier", "detail::equivalence::",
             "detail::binary_reader::", "detail::binary_writer::", "detail::pto_emitter::", "run_pipeline<"]
# What examples/04_host_compiler.cpp calls; each must be an undefined reference to the library.
CALLED = ["parse(", "verify(", "print(", "structurally_equal(", "explain_selection(", "lower(", "run_pipeline("]
COMPILED_NS = "compiled_by_TILE2BUFFER_EXTERN_PIPELINE::"
TWIN = """#include <tile2buffer/ir/verify.hpp>
#include <tile2buffer/text/parse.hpp>
#include <tile2buffer/text/print.hpp>
int main(int, char** argv) {
  const auto r = tile2buffer::parse(argv[0]);
  return static_cast<int>(tile2buffer::print(r.value).size() + tile2buffer::verify(r.value).size());
}
"""
LINE = re.compile(r"^[0-9a-fA-F ]{16} (\w) (.*)$")  # nm's "VALUE TYPE NAME"


def symbols(compiler, nm, source, extra):
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "host.o")
        cmd = compiler + ["-std=c++20", "-O0", "-I", REPO_INCLUDE] + extra + ["-c", source, "-o", obj]
        if os.environ.get("BOOST_INCLUDEDIR"):
            cmd += ["-isystem", os.environ["BOOST_INCLUDEDIR"]]
        subprocess.run(cmd, check=True)
        out = subprocess.run([nm, "-C", obj], check=True, stdout=subprocess.PIPE, text=True).stdout
    defined, undefined = [], []
    for line in out.splitlines():
        m = LINE.match(line)
        if m and m.group(1) == "U":
            undefined.append(m.group(2))
        elif m and m.group(1) in "TtWwVv":
            defined.append(m.group(2))
    return defined, undefined


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    compiler, nm, source = shlex.split(argv[1]), argv[2], argv[3]
    problems = []
    defined, undefined = symbols(compiler, nm, source, ["-DTILE2BUFFER_EXTERN_PIPELINE=1"])
    for m in MACHINERY:
        hits = [s for s in defined if m in s]
        if hits:
            problems.append("extern mode defines %d symbol(s) of %s, e.g. %s" % (len(hits), m, hits[0][:160]))
    for c in CALLED:
        if not any(COMPILED_NS + c in s for s in undefined):
            problems.append("extern mode does not call the library's %s...)" % c)
    # The twin: header-only, a TU making three of those calls instantiates their machinery, so the
    # check above can fail. (Why not the host itself: header-only it takes 13 s even at -O0.)
    with tempfile.TemporaryDirectory() as tmp:
        twin = os.path.join(tmp, "twin.cpp")
        with open(twin, "w") as f:
            f.write(TWIN)
        defined, _ = symbols(compiler, nm, twin, [])
    missing = [m for m in MACHINERY[:3] if not any(m in s for s in defined)]
    if missing:
        problems.append("header-only mode defines none of %s: the symbol check has gone blind" % ", ".join(missing))
    for p in problems:
        print("extern_host_symbols: " + p)
    if not problems:
        print("extern_host_symbols: ok (%s compiles none of the machinery in extern mode)" % os.path.basename(source))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
