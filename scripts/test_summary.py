#!/usr/bin/env python3
"""Prints how many tests ran and how many were skipped, per build and in all.

Reads what the test drivers wrote under BUILD/test-results/: ctest.xml (ctest --output-junit),
unit.xml (GoogleTest) and lit.xml (lit). Usage: test_summary.py BUILD [BUILD...]. Under CI (the
environment variable CI set), a skipped test fails the summary: every tool is installed there.
"""
import os
import sys
import xml.etree.ElementTree as ET


def count(path):
    """(run, skipped, failed, skipped names) of a JUnit-style XML file; None when it is absent."""
    if not os.path.exists(path):
        return None
    run = skipped = failed = 0
    names = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            skipped += 1
            names.append(case.get("name"))
        else:
            run += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
    return run, skipped, failed, names


def main():
    total_run = total_skipped = 0
    lines = []
    for build in sys.argv[1:]:
        results = os.path.join(build, "test-results")
        parts = []
        for label, name in (("ctest tests", "ctest.xml"), ("unit tests", "unit.xml"), ("lit tests", "lit.xml")):
            c = count(os.path.join(results, name))
            if c is None:
                continue
            run, skipped, failed, names = c
            total_run += run
            total_skipped += skipped
            text = f"{run} {label} ran"
            if failed:
                text += f" ({failed} failed)"
            if skipped:
                text += f", {skipped} skipped ({', '.join(names[:5])}{' ...' if len(names) > 5 else ''})"
            parts.append(text)
        if parts:
            lines.append(f"  {build}: " + "; ".join(parts))
    print("test summary:")
    for l in lines:
        print(l)
    print(f"  in all: {total_run} tests ran, {total_skipped} skipped")
    if total_skipped and os.environ.get("CI"):
        print("error: CI: tests were skipped on the CI machine, where every tool is installed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
