#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`t2b-opt --diagnostics=json` says what the text diagnostics say, as JSON a parser accepts.

For every golden `*-invalid.t2b` that t2b-opt rejects without pipeline flags, and for inputs whose
names hold invalid UTF-8 and control bytes, the JSON array must parse, and its (line, col,
source, message) entries must equal the `file:line:col: error: source: message` lines of the
text mode, in order. The tool's own errors (a file it cannot read, a mistyped flag, a --run
that cannot start) are JSON too: one entry with source "t2b-opt", saying what the text mode's
`t2b-opt: message` line says, with the same exit status.

    diagnostics_json.py T2B_OPT GOLDEN_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^(.*?):(\d+):(\d+): error: (?:([^:]+): )?(.*)$")
NOTICE = re.compile(r"^(?:.*?:(\d+):(\d+)|t2b-opt): (remark|warning): (.*)$")


def run(t2b_opt, args, path):
    return subprocess.run([t2b_opt] + args + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def text_entries(stderr):
    out = []
    for line in stderr.decode("utf-8", "replace").splitlines():
        m = LINE.match(line)
        if m:
            out.append((int(m.group(2)), int(m.group(3)), m.group(4) or "", m.group(5)))
    return out


def check(t2b_opt, path, failures):
    text = run(t2b_opt, [], path)
    if text.returncode != 1:
        return False
    js = run(t2b_opt, ["--diagnostics=json"], path)
    if js.returncode != 1:
        failures.append("%s: exit %d with --diagnostics=json, %d without" % (path, js.returncode, text.returncode))
        return True
    try:
        data = json.loads(js.stderr.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        failures.append("%s: not JSON: %s" % (path, e))
        return True
    got = [(d["line"], d["col"], d["source"], d["message"]) for d in data]
    want = text_entries(text.stderr)
    # Text mode decodes invalid bytes as U+FFFD too, so both sides compare equal.
    if got != want:
        failures.append("%s: JSON %r != text %r" % (path, got[:3], want[:3]))
    return True


def run_json(t2b_opt, argv, text_status, failures):
    """Runs t2b-opt with `argv` (which asks for JSON): its stderr parsed, or None after recording
    why it is not one JSON document; a different exit status than the text mode's is a failure."""
    js = subprocess.run([t2b_opt] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if js.returncode != text_status:
        failures.append("%r: exit %d with --diagnostics=json, %d without" % (argv, js.returncode, text_status))
    try:
        return json.loads(js.stderr.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        failures.append("%r: stderr is not one JSON document: %s" % (argv, e))
        return None


def check_tool_error(t2b_opt, args, failures):
    """One tool error: the text mode prints `t2b-opt: message`, the JSON mode that message, with
    the flag before the other arguments or after them (after the mistake, for a usage error)."""
    text = subprocess.run([t2b_opt] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = text.stderr.decode("utf-8", "replace").splitlines()[:1]
    if text.returncode == 0 or not first or not first[0].startswith("t2b-opt: "):
        failures.append("%r: expected a t2b-opt error in text mode, got exit %d: %r" % (args, text.returncode, first))
        return
    for argv in (["--diagnostics=json"] + args, args + ["--diagnostics=json"]):
        data = run_json(t2b_opt, argv, text.returncode, failures)
        if data is None:
            continue
        if not data or data[0]["source"] != "t2b-opt" or data[0]["message"] != first[0][len("t2b-opt: "):]:
            failures.append("%r: JSON %r does not say %r" % (argv, data[:1], first[0]))


def check_notices(t2b_opt, args, want, failures):
    """The remarks and warnings of the text mode (`file:line:col: KIND: text`, the tool's own
    `t2b-opt: warning: text`) are, in order, the JSON array's entries of those severities; `want`
    lists the severities expected, so that the case cannot pass by printing nothing."""
    text = subprocess.run([t2b_opt] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    notices = []
    for line in text.stderr.decode("utf-8", "replace").splitlines():
        m = NOTICE.match(line)
        if m:
            notices.append((int(m.group(1) or 0), int(m.group(2) or 0), m.group(3), m.group(4)))
    if [n[2] for n in notices] != want:
        failures.append("%r: text mode printed %r, expected severities %r" % (args, notices, want))
        return
    data = run_json(t2b_opt, ["--diagnostics=json"] + args, text.returncode, failures)
    if data is None:
        return
    got = [(d["line"], d["col"], d["severity"], d["message"]) for d in data if d["severity"] in ("remark", "warning")]
    if got != notices:
        failures.append("%r: JSON notices %r != text %r" % (args, got, notices))
    errors = [d for d in data if d["severity"] == "error"]
    if (text.returncode != 0) != bool(errors):
        failures.append("%r: exit %d but %d JSON errors" % (args, text.returncode, len(errors)))


def main():
    t2b_opt, golden = sys.argv[1], sys.argv[2]
    failures = []
    checked = 0
    for path in sorted(glob.glob(os.path.join(golden, "**", "*-invalid.t2b"), recursive=True)):
        checked += check(t2b_opt, path, failures)
    with tempfile.TemporaryDirectory() as tmp:
        hostile = os.path.join(tmp, "hostile.t2b")
        with open(hostile, "wb") as f:
            f.write(b'aiv @k\xff\xfe(X: Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {\n'
                    b'  x\x01"\\ = tile.nope\xc3(X)\n  return x\n}\n')
        if not check(t2b_opt, hostile, failures):
            failures.append("hostile input was accepted")
        checked += 1
        kernel = os.path.join(tmp, "k.t2b")
        with open(kernel, "w") as f:
            f.write("aiv @k(X: Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {\n  return X\n}\n")
        for args in (["--lowr", kernel], [os.path.join(tmp, "missing.t2b")],
                     ["--run=nope", "--output-dir", os.path.join(tmp, "out"), kernel],
                     ["--run=k", "--output-dir", os.path.join(tmp, "out"), kernel]):
            check_tool_error(t2b_opt, args, failures)
        # A kernel that stays Tile (a remark), an out tensor --run never writes (a warning), and a
        # remark before an error.
        mixed = os.path.join(golden, "..", "..", "examples", "kernels", "02_unplanned_add_mul.t2b")
        check_notices(t2b_opt, ["--lower", "-o", os.devnull, mixed], ["remark"], failures)
        unwritten = os.path.join(tmp, "unwritten.t2b")
        with open(unwritten, "w") as f:
            f.write("aiv @k(Out: out Tensor[[16, 32], FP32]) -> Tensor[[16, 32], FP32] {\n"
                    "  return Out\n}\n")
        check_notices(t2b_opt, ["--run=k", "--output-dir", os.path.join(tmp, "out2"), unwritten], ["warning"], failures)
        check_notices(t2b_opt, ["--lower", "-o", os.path.join(tmp, "missing-dir", "out.t2b"), mixed], ["remark"], failures)
    if checked < 20:
        failures.append("only %d inputs were rejected; expected the golden invalid files" % checked)
    for f in failures:
        print("FAIL:", f)
    print("diagnostics_json: %d inputs, %d failures" % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
