#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Formats the tree's C++ with clang-format-14 and the repository's .clang-format.
#   bash tools/format.sh                 reformat every listed file in place
#   bash tools/format.sh --check         exit 1 and show the differences when a listed file is not formatted
#   bash tools/format.sh --check FILE..  the same for the given files only (any path)
#   bash tools/format.sh --list          print the files it formats, one a line
#   bash tools/format.sh --self-test     prove that --check passes a formatted file and fails a misformatted one
# Options: --clang-format PATH (default: $CLANG_FORMAT, else clang-format-14 on PATH).
# The files are the tracked *.hpp, *.cpp, *.h and *.cc (`git ls-files`) less the exclude list below.
# Exit 77 (Meson's "skipped") when clang-format-14 or git is missing: a check that cannot run must
# say so, not pass. The meson tests `format` and `format-check-detects-misformatting` (suite infra).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
style="$repo/.clang-format"

# Files whose exact bytes are what a test reads; each with the reason.
excludes=(
  # check_layers.py's expected output names these files' line numbers (tests/infra/layers_fixture/expected.txt).
  'tests/infra/layers_fixture/*'
  # Mis-annotated compile-fail files that the harness must reject: fixtures kept as written.
  'tests/infra/harness/*'
)

mode=format
clang_format="${CLANG_FORMAT:-}"
files=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --check) mode=check ;;
    --list) mode=list ;;
    --self-test) mode=self-test ;;
    --clang-format) clang_format="$2"; shift ;;
    --clang-format=*) clang_format="${1#*=}" ;;
    -h|--help) sed -n '3,12p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "format.sh: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1") ;;
  esac
  shift
done

excluded() {
  local f="$1" pattern
  for pattern in "${excludes[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ "$f" == $pattern ]] && return 0
  done
  return 1
}

# list_files: sets `files` to the tracked C++ files less the excludes, relative to $repo.
list_files() {
  if ! command -v git >/dev/null 2>&1 || ! git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "format.sh: SKIP: $repo is not a git checkout (or git is missing), so the files to format cannot be listed" >&2
    exit 77
  fi
  local f tracked
  tracked="$(git -C "$repo" ls-files -- '*.hpp' '*.cpp' '*.h' '*.cc')"
  files=()
  while IFS= read -r f; do
    [[ -n "$f" ]] && ! excluded "$f" && files+=("$f")
  done <<<"$tracked"
  if [[ ${#files[@]} -eq 0 ]]; then
    echo "format.sh: git ls-files listed no C++ file in $repo" >&2
    exit 1
  fi
}

if [[ $mode == list ]]; then
  list_files
  printf '%s\n' "${files[@]}"
  exit 0
fi

# Why exactly version 14: each clang-format release formats some constructs differently, so a
# tree formatted by one fails the check of another; 14 is the one Debian 12 ships.
if [[ -z "$clang_format" ]]; then
  clang_format="$(command -v clang-format-14 || true)"
fi
if [[ -z "$clang_format" || ! -x "$(command -v "$clang_format" || true)" ]]; then
  # shellcheck disable=SC2016 # the quotes are literal; $clang_format expands
  echo "format.sh: SKIP: clang-format-14 not found${clang_format:+ (tried '$clang_format')}; install it with" \
    "'bash tools/install-deps.sh' (Debian package clang-format-14) or pass --clang-format PATH" >&2
  exit 77
fi
version="$("$clang_format" --version 2>/dev/null || true)"
if [[ ! "$version" =~ version\ 14\. ]]; then
  echo "format.sh: SKIP: $clang_format is not clang-format 14 ($version); the tree's format is clang-format-14's" >&2
  exit 77
fi

# check_files FILE...: prints a unified diff for each file that clang-format would change (up to
# 300 lines in all), then the count; returns 1 when any differs.
check_files() {
  local f bad=() candidates=() shown=0 d n
  # Why one clang-format process for all files: its start-up dominates; --dry-run reports every
  # place it would change as `FILE:LINE:COL: warning: ... [-Wclang-format-violations]`.
  if ! d="$("$clang_format" --style="file:$style" --dry-run "$@" 2>&1)"; then
    printf '%s\n' "$d" | head -n 50
    echo "format.sh: $clang_format failed"
    return 2
  fi
  mapfile -t candidates < <(printf '%s\n' "$d" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: .*\[-Wclang-format-violations\]$/\1/p' | sort -u)
  # Why each candidate is formatted again and compared: --dry-run also reports replacements that
  # change nothing (clang-format-14 rewrites `}  // namespace a::inline b` with the same text).
  for f in "${candidates[@]}"; do
    "$clang_format" --style="file:$style" "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if [[ ${#candidates[@]} -eq 0 && -n "$d" ]]; then
    # Why: output that names no file is a message this script does not know; it must not pass.
    printf '%s\n' "$d" | head -n 50
    echo "format.sh: unexpected output from $clang_format --dry-run"
    return 2
  fi
  if [[ ${#bad[@]} -eq 0 ]]; then
    echo "format.sh: $# file(s) formatted"
    return 0
  fi
  for f in "${bad[@]}"; do
    if [[ $shown -lt 300 ]]; then
      d="$("$clang_format" --style="file:$style" "$f" | diff -u --label "$f" --label "$f (clang-format-14)" "$f" - || true)"
      printf '%s\n' "$d" | head -n $((300 - shown))
      n="$(printf '%s\n' "$d" | wc -l)"
      shown=$((shown + n))
    fi
  done
  [[ $shown -ge 300 ]] && echo "... (diff cut at 300 lines)"
  echo "format.sh: ${#bad[@]} of $# file(s) not formatted:"
  printf '  %s\n' "${bad[@]}"
  echo "format.sh: run 'bash tools/format.sh' to reformat them (or mark a hand-aligned table // clang-format off/on)"
  return 1
}

case "$mode" in
  check)
    if [[ ${#files[@]} -eq 0 ]]; then
      list_files
      cd "$repo"
    fi
    check_files "${files[@]}"
    ;;
  format)
    if [[ ${#files[@]} -eq 0 ]]; then
      list_files
      cd "$repo"
    fi
    printf '%s\0' "${files[@]}" | xargs -0 -n 32 "$clang_format" --style="file:$style" -i
    echo "format.sh: formatted ${#files[@]} file(s)"
    ;;
  self-test)
    # A file clang-format has just written must pass the check (no false alarm), and the same file
    # with one misformatted line must fail it (the check can fail).
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    "$clang_format" --style="file:$style" "$repo/include/tile2buffer/config.hpp" > "$tmp/formatted.hpp"
    if ! check_files "$tmp/formatted.hpp" > "$tmp/pass.log"; then
      cat "$tmp/pass.log"
      echo "format.sh: self-test FAILED: a file clang-format-14 just formatted does not pass --check"
      exit 1
    fi
    cp "$tmp/formatted.hpp" "$tmp/misformatted.hpp"
    printf '%s\n' 'namespace format_self_test { inline int  misformatted( int x ){return x ;} }' >> "$tmp/misformatted.hpp"
    if check_files "$tmp/misformatted.hpp" > "$tmp/fail.log"; then
      cat "$tmp/fail.log"
      echo "format.sh: self-test FAILED: --check passed a file with a misformatted line"
      exit 1
    fi
    if ! grep -q '^+namespace format_self_test {$' "$tmp/fail.log"; then
      cat "$tmp/fail.log"
      echo "format.sh: self-test FAILED: --check failed but its diff does not show the misformatted line"
      exit 1
    fi
    echo "format.sh: self-test passed (a formatted file passes --check, a misformatted line fails it)"
    ;;
esac
