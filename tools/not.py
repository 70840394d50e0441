#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`not CMD...`: succeeds only when CMD exits non-zero without being killed by a signal."""
import subprocess
import sys

proc = subprocess.run(sys.argv[1:])
sys.exit(0 if proc.returncode > 0 else 1)
