#!/usr/bin/env python3
"""Fails when a test was skipped without a written reason.

Reads every JUnit XML report of surefire and failsafe under */target, prints each skipped test with its
reason, and exits 1 if any has none: an empty message, JUnit's "Assumption failed: assumption is not
true" (assumeTrue without a message) or "... is @Disabled" (@Disabled without a reason). Also fails when
no report exists (the tests did not run). Usage: python3 .ci/check-skips.py [ROOT]
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

NO_REASON = ("", "Assumption failed: assumption is not true")


def main(root):
    reports = sorted(
        glob.glob(os.path.join(root, "**", "target", "surefire-reports", "TEST-*.xml"), recursive=True)
        + glob.glob(os.path.join(root, "**", "target", "failsafe-reports", "TEST-*.xml"), recursive=True))
    if not reports:
        print("check-skips: no JUnit XML report under */target: did the tests run?")
        return 1
    skipped, silent = 0, []
    for report in reports:
        for case in ET.parse(report).getroot().iter("testcase"):
            s = case.find("skipped")
            if s is None:
                continue
            skipped += 1
            reason = (s.get("message") or "").strip()
            if not reason and s.text:
                # failsafe writes the exception as the element's text instead of a message attribute
                reason = s.text.strip().splitlines()[0].strip()
                for prefix in ("org.opentest4j.TestAbortedException:", "org.junit.AssumptionViolatedException:"):
                    if reason.startswith(prefix):
                        reason = reason[len(prefix):].strip()
            name = "%s.%s" % (case.get("classname"), case.get("name"))
            print("skipped: %s: %s" % (name, reason or "(no reason)"))
            if reason in NO_REASON or reason.endswith("is @Disabled"):
                silent.append(name)
    print("check-skips: %d reports, %d skipped, %d without a reason" % (len(reports), skipped, len(silent)))
    for name in silent:
        print("  skipped without a written reason: " + name)
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
