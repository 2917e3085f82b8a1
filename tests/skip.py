"""How the test drivers say that a check could not run.

A driver that cannot run (part of) its checks because a tool is missing exits SKIP_CODE, which
CTest's SKIP_RETURN_CODE turns into "Skipped" (never "Passed"). Under CI (the environment
variable CI is set) every tool is installed by the setup, so a skip is an error (exit 1).
"""
import os
import sys

SKIP_CODE = 77


def skipped(reasons):
    """Prints each reason and returns the driver's exit code: SKIP_CODE, or 1 under CI."""
    for r in reasons:
        print("SKIPPED: " + r)
    if os.environ.get("CI"):
        print("error: CI: these checks must run on the CI machine; a tool the setup installs is missing")
        return 1
    return SKIP_CODE


def finish(failures, skips):
    """The exit code of a driver: 1 on failures, else the skip code when something was skipped."""
    if failures:
        return 1
    if skips:
        return skipped(skips)
    return 0


sys.dont_write_bytecode = True
