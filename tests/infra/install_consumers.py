#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The installed package works for a CMake and a pkg-config consumer (test `infra/install-consumers`).

    install_consumers.py --meson MESON --build-root DIR --prefix P --libdir L --version V
                         --cxx "COMPILER..." --consumer DIR [--pipeline] [--sabotage]

Stages `meson install --no-rebuild --tags devel` of the build in a temporary DESTDIR (the devel
tag: headers, pkg-config and CMake files, the pipeline library; t2b-opt need not be built), then
  1. configures DIR (tests/infra/consumers/cmake) with CMAKE_PREFIX_PATH=<DESTDIR><prefix>, checks
     that find_package took the staged tile2buffer-config.cmake and that the compile commands
     include the staged include directory (the config is relocatable), builds and runs `app`
     (tile2buffer::tile2buffer) and, with --pipeline, `app_pipeline` (tile2buffer::pipeline);
  2. compiles DIR/main.cpp with `pkg-config --cflags tile2buffer` (PKG_CONFIG_LIBDIR in the staged
     tree, PKG_CONFIG_SYSROOT_DIR=<DESTDIR>) and runs it; with --pipeline, against
     `pkg-config --cflags --libs --static tile2buffer-pipeline` (which requires tile2buffer)
     instead, as step 1's `app` already compiles the pipeline header-only.
Steps 1 and 2 run concurrently.
The version V (meson.project_version()) must be what CMake and pkg-config report and what the
installed headers say; the version file is also loaded alone (`cmake -P`) for a few requests.
Consumers compile at -O0 with -Wall -Wextra -Wpedantic -Werror.

--sabotage shows that the check can fail (test `infra/install-consumers-detects-a-broken-package`):
the intact package must pass step 1's configure and its checks, and each of these breakages of a
copy of the staged tree must make them (or pkg-config) fail with the expected message: the config
file missing, the prefix named absolutely (not relocatable), a wrong include directory, a version
file reporting another version, the pkg-config file missing, and the pipeline component requested
without the library (or, with it, the library or tile2buffer-pipeline.pc missing).

Exits 77 (Meson's skip) when cmake or pkg-config is not installed, 1 on any failure."""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
# Variables from the caller's environment that would change what the consumers find or how they build.
SCRUBBED = ["CXXFLAGS", "CPPFLAGS", "LDFLAGS", "CMAKE_PREFIX_PATH", "CMAKE_GENERATOR", "tile2buffer_DIR",
            "tile2buffer_ROOT", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"]


class Failure(Exception):
    pass


def run(cmd, what, env=None, cwd=None, timeout=300):
    """Runs cmd; returns its stdout+stderr, raises Failure (with the output) on a non-zero exit."""
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise Failure(f"{what} failed (exit {proc.returncode}): {shlex.join(cmd)}\n{proc.stdout}")
    return proc.stdout


def clean_env():
    env = dict(os.environ)
    for name in SCRUBBED:
        env.pop(name, None)
    return env


def staged(destdir, path):
    """Where `meson install --destdir DESTDIR` puts the absolute path PATH."""
    return os.path.join(destdir, os.path.relpath(path, os.sep))


def meson_command(meson, build_root):
    """MESON, else the Meson that configured BUILD_ROOT (build.ninja's regeneration rule runs it)."""
    if meson:
        return [meson]
    with open(os.path.join(build_root, "build.ninja"), encoding="utf-8") as f:
        found = re.search(r"^rule REGENERATE_BUILD\n\s*command = (.*?) --internal regenerate", f.read(), re.M)
    if not found:
        raise Failure("no meson command: no --meson and no regeneration rule in build.ninja")
    return shlex.split(found.group(1))


def stage(args, destdir):
    run(meson_command(args.meson, args.build_root)
        + ["install", "-C", args.build_root, "--no-rebuild", "--tags", "devel", "--destdir", destdir], "meson install")
    prefix = staged(destdir, args.prefix)
    config = os.path.join(prefix, args.libdir, "cmake", "tile2buffer", "tile2buffer-config.cmake")
    for path in (config, os.path.join(os.path.dirname(config), "tile2buffer-config-version.cmake"),
                 os.path.join(prefix, args.libdir, "pkgconfig", "tile2buffer.pc")):
        if not os.path.isfile(path):
            raise Failure(f"meson install did not install {os.path.relpath(path, destdir)}")
    return prefix, config


def cmake_configure(args, prefix, build, pipeline):
    cxx = shlex.split(args.cxx)
    cmd = ["cmake", "-S", args.consumer, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
           f"-DCMAKE_CXX_COMPILER={cxx[-1]}", "-DCMAKE_BUILD_TYPE=Debug", "-DCMAKE_CXX_FLAGS_DEBUG=-O0",
           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
           f"-DT2B_EXPECTED_VERSION={args.version}", f"-DT2B_WITH_PIPELINE={'ON' if pipeline else 'OFF'}"]
    if len(cxx) > 1:  # e.g. `ccache g++-12`
        cmd.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={';'.join(cxx[:-1])}")
    return run(cmd, "cmake configure of the consumer", env=clean_env())


def find_version_vars(prefix, version):
    """CMake script lines setting what find_package sets for a version file: PREFIX (e.g.
    PACKAGE_FIND_VERSION or PACKAGE_FIND_VERSION_MIN) to VERSION, with its components and count."""
    parts = version.split(".") if version else []
    lines = [f'set({prefix} "{version}")', f"set({prefix}_COUNT {len(parts)})"]
    for i, name in enumerate(("MAJOR", "MINOR", "PATCH", "TWEAK")):
        lines.append(f"set({prefix}_{name} {parts[i] if i < len(parts) else 0})")
    return lines


def check_version_file(args, config, tmp):
    """Loads the staged version file the way find_package does, for requests derived from the
    version: exact, major.minor, older and newer minor, next major, no version, two ranges."""
    major, minor = (int(x) for x in (args.version.split(".") + ["0"])[:2])
    cases = [("", True, False), (args.version, True, True), (f"{major}.{minor}", True, None),
             (f"{major}.{minor + 1}", False, False), (f"{major + 1}", False, False),
             (f"{major}.{minor}...<{major + 1}", True, False), (f"{major}.{minor}...<{args.version}", False, False)]
    if minor > 0:  # an older minor version is compatible only from 1.0 on
        cases.append((f"{major}.{minor - 1}", major > 0, False))
    version_file = os.path.join(os.path.dirname(config), "tile2buffer-config-version.cmake")
    for i, (request, compatible, exact) in enumerate(cases):
        lines = ['set(PACKAGE_FIND_NAME "tile2buffer")']
        if "..." in request:
            low, high = request.split("...")
            lines += [f'set(PACKAGE_FIND_VERSION_RANGE "{request}")', 'set(PACKAGE_FIND_VERSION_RANGE_MIN "INCLUDE")',
                      f'set(PACKAGE_FIND_VERSION_RANGE_MAX "{"EXCLUDE" if high.startswith("<") else "INCLUDE"}")']
            lines += find_version_vars("PACKAGE_FIND_VERSION", low) + find_version_vars("PACKAGE_FIND_VERSION_MIN", low)
            lines += find_version_vars("PACKAGE_FIND_VERSION_MAX", high.lstrip("<"))
        else:
            lines += find_version_vars("PACKAGE_FIND_VERSION", request)
        lines += [f'include("{version_file}")',
                  'message("RESULT ${PACKAGE_VERSION}|${PACKAGE_VERSION_COMPATIBLE}|${PACKAGE_VERSION_EXACT}")']
        script = os.path.join(tmp, f"version{i}.cmake")
        with open(script, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        found = re.search(r"^RESULT (.*)$", run(["cmake", "-P", script], "cmake -P on the version file"), re.M)
        got = found.group(1).split("|") if found else []
        want_flag = {True: "TRUE", False: "FALSE"}
        if (len(got) != 3 or got[0] != args.version or got[1] != want_flag[compatible]
                or (exact is not None and got[2] != want_flag[exact])):
            raise Failure(f"version file, request {request or '(none)'!r}: got version|compatible|exact "
                          f"{'|'.join(got)}, expected {args.version}|{want_flag[compatible]}|"
                          f"{'any' if exact is None else want_flag[exact]}")
    print(f"version file: {len(cases)} requests answered as expected")


def check_cmake_consumer(args, prefix, config, build, pipeline, compile_and_run=True):
    """Step 1; returns the lines to report."""
    report = []
    cmake_configure(args, prefix, build, pipeline)
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
        found = re.search(r"^tile2buffer_DIR:PATH=(.*)$", f.read(), re.M)
    if not found or os.path.realpath(found.group(1)) != os.path.realpath(os.path.dirname(config)):
        raise Failure(f"find_package took {found.group(1) if found else 'nothing'}, not the staged "
                      f"{os.path.dirname(config)}")
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        commands = json.load(f)
    include = os.path.join(prefix, "include")
    if not commands or not all(include in c["command"] for c in commands):
        raise Failure(f"the consumer's compile commands do not all name the staged {include}:\n"
                      + "\n".join(c["command"] for c in commands))
    if not compile_and_run:
        return report
    run(["cmake", "--build", build], "cmake build of the consumer", env=clean_env())
    targets = ["app"] + (["app_pipeline"] if args.pipeline else [])
    for target in targets:
        out = run([os.path.join(build, target)], f"the CMake consumer {target}")
        report.append(f"cmake/{target}: {out.strip()}")
        expect = "the compiled pipeline library" if target == "app_pipeline" else "the headers only"
        if expect not in out:
            raise Failure(f"cmake/{target} did not run with {expect}")
    return report


def pkg_config_env(prefix, destdir, libdir):
    env = clean_env()
    # Only the staged .pc files; the sysroot makes their -I/-L paths point into the staged tree.
    env["PKG_CONFIG_LIBDIR"] = os.path.join(prefix, libdir, "pkgconfig")
    env["PKG_CONFIG_SYSROOT_DIR"] = destdir
    return env


def check_pkg_config_consumer(args, prefix, destdir, tmp):
    """Step 2; returns the lines to report."""
    report = []
    env = pkg_config_env(prefix, destdir, args.libdir)
    version = run(["pkg-config", "--modversion", "tile2buffer"], "pkg-config --modversion", env=env).strip()
    if version != args.version:
        raise Failure(f"pkg-config reports tile2buffer {version}, expected {args.version}")
    packages = [("tile2buffer", ["--cflags"], "the headers only")]
    if args.pipeline:
        packages.append(("tile2buffer-pipeline", ["--cflags", "--libs", "--static"], "the compiled pipeline library"))
    include = os.path.join(prefix, "include")
    for i, (package, query, expect) in enumerate(packages):
        flags = shlex.split(run(["pkg-config"] + query + [package], f"pkg-config {package}", env=env))
        if f"-I{include}" not in flags:
            raise Failure(f"pkg-config {' '.join(query)} {package} gives {flags}, without -I{include}")
        if "-std=c++20" not in flags:
            raise Failure(f"pkg-config {' '.join(query)} {package} gives {flags}, without -std=c++20 "
                          "(g++ 12 and clang 14 default to C++17, which the headers refuse)")
        if args.pipeline and i == 0:
            # Why: the header-only compile costs 15 s; the CMake consumer's `app` already does it,
            # and tile2buffer-pipeline requires tile2buffer, so its build uses these flags too.
            report.append(f"pkg-config/{package}: {' '.join(flags)} (compiled through tile2buffer-pipeline)")
            continue
        exe = os.path.join(tmp, f"pkg-config-{package}")
        # Why no -std here: the package's Cflags must carry it.
        run(shlex.split(args.cxx) + ["-O0", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                                     f'-DT2B_PACKAGE_VERSION="{version}"', os.path.join(args.consumer, "main.cpp"),
                                     "-o", exe] + flags, f"compiling the pkg-config consumer ({package})", env=env)
        out = run([exe], f"the pkg-config consumer ({package})")
        report.append(f"pkg-config/{package}: {out.strip()}")
        if expect not in out:
            raise Failure(f"pkg-config/{package} did not run with {expect}")
    return report


def sabotage(args, prefix, destdir, config, tmp):
    """Each breakage of a copy of the staged tree must be reported; returns the number that were not."""
    # The baseline must pass the same checks.
    check_cmake_consumer(args, prefix, config, os.path.join(tmp, "intact"), args.pipeline, compile_and_run=False)
    print("intact package: cmake configure and its checks succeed")

    def edit(path, old, new):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if old not in text:
            raise Failure(f"sabotage: {old!r} not in {path}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))

    def edit_re(path, pattern, new):
        with open(path, encoding="utf-8") as f:
            text, count = pattern.subn(new, f.read())
        if count != 1:
            raise Failure(f"sabotage: {pattern.pattern!r} matched {count} times in {path}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    version_file = os.path.join(os.path.dirname(config), "tile2buffer-config-version.cmake")
    relative = re.compile(r'get_filename_component\(_tile2buffer_prefix "\$\{CMAKE_CURRENT_LIST_DIR\}[^"]*"')
    cases = [
        ("config file missing", "cmake", lambda c, v, p: os.remove(c),
         'Could not find a package configuration file provided by "tile2buffer"'),
        ("prefix named absolutely (not relocatable)", "cmake",
         lambda c, v, p: edit_re(c, relative, f'get_filename_component(_tile2buffer_prefix "{args.prefix}"'),
         ("do not all name the staged", "non-existent path", "libtile2buffer-pipeline.a is missing")),
        ("wrong include directory", "cmake",
         lambda c, v, p: edit(c, 'INTERFACE_INCLUDE_DIRECTORIES "${_tile2buffer_prefix}/include"',
                              'INTERFACE_INCLUDE_DIRECTORIES "${_tile2buffer_prefix}/include-missing"'),
         "non-existent path"),
        ("version file reports another version", "cmake",
         lambda c, v, p: edit(v, f'set(PACKAGE_VERSION "{args.version}")', 'set(PACKAGE_VERSION "99.0.0")'),
         'compatible with requested version'),
        ("pkg-config file missing", "pkg-config",
         lambda c, v, p: os.remove(os.path.join(p, args.libdir, "pkgconfig", "tile2buffer.pc")),
         "Package tile2buffer was not found"),
    ]
    if args.pipeline:
        cases.append(("pipeline library missing", "cmake",
                      lambda c, v, p: os.remove(os.path.join(p, args.libdir, "libtile2buffer-pipeline.a")),
                      "libtile2buffer-pipeline.a is missing"))
        cases.append(("tile2buffer-pipeline.pc missing", "pkg-config-pipeline",
                      lambda c, v, p: os.remove(os.path.join(p, args.libdir, "pkgconfig", "tile2buffer-pipeline.pc")),
                      "Package tile2buffer-pipeline was not found"))
    else:
        cases.append(("pipeline component requested without the library", "cmake-pipeline", lambda c, v, p: None,
                      "has no component(s) pipeline"))
    missed = 0
    for i, (name, tool, breakage, expected) in enumerate(cases):
        copy = os.path.join(tmp, f"broken{i}")
        shutil.copytree(destdir, copy, symlinks=True)
        broken_prefix = staged(copy, args.prefix)
        breakage(config.replace(destdir, copy, 1), version_file.replace(destdir, copy, 1), broken_prefix)
        try:
            if tool.startswith("pkg-config"):
                package = "tile2buffer-pipeline" if tool == "pkg-config-pipeline" else "tile2buffer"
                run(["pkg-config", "--cflags", package], "pkg-config",
                    env=pkg_config_env(broken_prefix, copy, args.libdir))
            else:
                check_cmake_consumer(args, broken_prefix, config.replace(destdir, copy, 1),
                                     os.path.join(tmp, f"broken{i}-build"), tool == "cmake-pipeline" or args.pipeline,
                                     compile_and_run=False)
        except Failure as e:
            words = " ".join(str(e).split())  # CMake wraps its messages
            if any(text in words for text in ([expected] if isinstance(expected, str) else expected)):
                print(f"{name}: detected")
                continue
            print(f"{name}: failed, but not with {expected!r}:\n{e}")
        else:
            print(f"{name}: NOT detected")
        missed += 1
    return missed


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--meson", default="", help="the meson command (empty: the one build.ninja names)")
    for option in ("--build-root", "--prefix", "--libdir", "--version", "--cxx", "--consumer"):
        parser.add_argument(option, required=True)
    parser.add_argument("--pipeline", action="store_true", help="the build installs the pipeline library")
    parser.add_argument("--sabotage", action="store_true", help="check that broken packages are detected")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("cmake", "pkg-config") if shutil.which(tool) is None]
    if missing:
        print(f"skipped: {' and '.join(missing)} not installed")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="t2b-install-") as tmp:
        destdir = os.path.join(tmp, "stage")
        try:
            prefix, config = stage(args, destdir)
            if args.sabotage:
                missed = sabotage(args, prefix, destdir, config, tmp)
                print(f"{missed} breakage(s) not detected")
                return 1 if missed else 0
            check_version_file(args, config, tmp)
            # Why two threads: the header-only compiles of main.cpp (one per step without --pipeline)
            # take most of the time.
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                steps = [pool.submit(check_cmake_consumer, args, prefix, config, os.path.join(tmp, "cmake-build"),
                                     args.pipeline),
                         pool.submit(check_pkg_config_consumer, args, prefix, destdir, tmp)]
                for step in steps:
                    print("\n".join(step.result()))
        except (Failure, subprocess.TimeoutExpired) as e:
            print(f"FAIL: {e}")
            return 1
    print("install-consumers: CMake and pkg-config consumers built against the staged install and ran")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
