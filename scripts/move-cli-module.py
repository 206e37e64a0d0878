#!/usr/bin/env python3
"""Moves the command line out of agent (the flat package io.flowtrace.cli) into the cli module, one
package per concept. Re-runnable: a file already at its new place is left alone, so after
someone changes a file at its old place on another branch, merge that branch, run this again and the
change follows the file (git mv), with its package line and imports rewritten.

    python3 scripts/move-cli-module.py        (from the repository root; then mvn spotless:apply -pl cli)

What it does, and nothing else: git mv of each file below, its package line, imports of the moved
classes in every Java file of the repository (and fully-qualified names in code), and `public` on each
moved top-level type (the packages now split what one package held). Member visibility, the poms and
the launcher are edits of their own in the commit.
"""
import os
import re
import subprocess
import sys

OLD = "io.flowtrace.cli"
OLD_MAIN = "agent/src/main/java/io/flowtrace/cli"
OLD_TEST = "agent/src/test/java/io/flowtrace/cli"
NEW_MAIN = "cli/src/main/java/io/flowtrace/cli"
NEW_TEST = "cli/src/test/java/io/flowtrace/cli"

# class -> package under io.flowtrace.cli ("" = io.flowtrace.cli itself)
MAIN = {
    "": ["FlowtraceCli", "ClusterRedirectCommand", "DemoRedirectCommand"],
    "console": ["Terminal", "Progress", "FlowtraceVersion", "PrivateOutput", "FileProblems"],
    "capture": ["CaptureInput", "CaptureBytes", "CaptureCompression", "CountingInputStream", "CaptureProblems",
                "BpfFilter", "OpenVpnWireOptions"],
    "analyze": ["AnalyzeCommand", "AnalyzedFlows", "FlowCollector", "ReportCandidates", "HostFilter", "SummaryLine",
                "OpenVpnAnalysis", "InputSections"],
    "output": ["TextReportWriter", "JsonReportWriter", "CsvFlowWriter", "ConnectionTable", "ServiceTableWriter",
               "EventWriter", "TextEventWriter", "OpenVpnReportWriter", "ReportLabels", "Units"],
    "report": ["report/Chart", "report/FlowGraph", "report/FlowGraphJson", "report/InteractiveReport",
               "report/LongColumn", "report/Section"],
    "conntrack": ["ConntrackCommand", "ConntrackSizesCommand", "ConntrackTextInput", "KernelFeatureOptions"],
    "agent": ["AgentCommand", "AgentConntrackCommand", "AgentPacketsCommand", "AgentExit", "AgentProgress",
              "AgentShutdown", "BatchingOptions", "PublishOptions"],
}
# tests: the process- and command-level ones stay in io.flowtrace.cli, a unit test goes with its class
TEST = {
    "": ["AnalyzeCommandTest", "AnalyzeFilterTest", "AnalyzeOpenVpnTest", "CommandLineErrorsTest",
         "CommandLineUxTest", "ConntrackSizesCommandTest", "FlowtraceCliTest", "FlowtraceProcess",
         "HelpAndReadmeTest", "LauncherCompilerChoiceTest", "ManPageTest", "PseudoTerminal",
         "ReportAxesInChromiumTest", "ReportInChromiumTest", "ReportZoomInChromiumTest", "SeveralInputsTest",
         "SummaryLocaleTest", "TextReportTest"],
    "console": ["TerminalTest", "PrivateOutputTest", "ProgressOnTerminalTest"],
    "capture": ["CaptureBytesTest"],
    "output": ["ReportLabelsTest"],
    "report": ["report/ChartTest", "ReportDataTest"],
    "agent": ["AgentConntrackITCase", "AgentPacketsReplayITCase", "AgentSigtermFlushITCase",
              "AgentUndeliveredITCase"],
}
# agent's own tests that run the command line: they go with it (io.flowtrace.cli.agent)
AGENT_TEST_DIR = "agent/src/test/java/io/flowtrace/agent"
AGENT_TESTS = {
    os.path.join(AGENT_TEST_DIR, "packets", "TcpdumpAgentLiveITCase" + ".java"): "agent",
    os.path.join(AGENT_TEST_DIR, "security", "AgentSaslSslITCase" + ".java"): "agent",
}
RESOURCES = {
    "agent/src/main/resources/io/flowtrace/cli/report/report.html":
        "cli/src/main/resources/io/flowtrace/cli/report/report.html",
    # FlowtraceVersion reads it beside itself
    "agent/src/main/resources-filtered/io/flowtrace/cli/version.properties":
        "cli/src/main/resources-filtered/io/flowtrace/cli/console/version.properties",
    # the program's logging: the command line is the program now
    "agent/src/main/resources/log4j2.xml": "cli/src/main/resources/log4j2.xml",
}


# members used across the new packages (found by compiling): made public, by class and simple name
# (FlowtraceCli.EXIT_* no longer: the commands read console.ExitCodes since the commit after the move)
PUBLIC = {
    "io.flowtrace.cli": ["PseudoTerminal", "FlowtraceProcess"],
    "io.flowtrace.cli.FlowtraceProcess": ["Result", "run"],
    "io.flowtrace.cli.FlowtraceProcess.Result": ["assertNoStackTrace"],
    "io.flowtrace.cli.PseudoTerminal": ["available", "run"],
    "io.flowtrace.cli.agent.AgentExit": ["SPOOLED"],
    "io.flowtrace.cli.capture.BpfFilter": ["compile", "FilterException"],
    "io.flowtrace.cli.capture.CaptureInput": ["open", "UnreadableInputException", "size", "stream", "name", "bytesRead"],
    "io.flowtrace.cli.capture.CaptureProblems": ["CaptureProblems", "report"],
    "io.flowtrace.cli.capture.CountingInputStream": ["CountingInputStream"],
    "io.flowtrace.cli.capture.OpenVpnWireOptions": ["enabled", "ports", "wire"],
    "io.flowtrace.cli.console.FileProblems": ["describe"],
    "io.flowtrace.cli.console.Progress": ["elapsedSeconds", "start", "shortName", "bar", "update"],
    "io.flowtrace.cli.output.ConnectionTable": ["cells", "Row", "print"],
    "io.flowtrace.cli.output.CsvFlowWriter": ["header", "row"],
    "io.flowtrace.cli.output.EventWriter": ["write", "EventWriter"],
    "io.flowtrace.cli.output.OpenVpnReportWriter": ["wrappingText"],
    "io.flowtrace.cli.output.ServiceTableWriter": ["write"],
    "io.flowtrace.cli.output.TextEventWriter": ["finish", "write", "TextEventWriter"],
}


def make_public(cls, names):
    """`public` on the declarations of these members (method, constructor, field, nested type) of class cls."""
    parts = cls.split(".")
    path = None
    for i in range(len(parts), 0, -1):  # the file of a nested class is its top-level class's
        for tree in ("cli/src/main/java", "cli/src/test/java"):
            if os.path.exists(os.path.join(tree, *parts[:i]) + ".java"):
                path = os.path.join(tree, *parts[:i]) + ".java"
                break
        if path:
            break
    if path is None:  # cls is a package: names are its top-level types
        for name in names:
            for tree in ("cli/src/main/java", "cli/src/test/java"):
                top = os.path.join(tree, *parts, name + ".java")
                if os.path.exists(top):
                    with open(top, encoding="utf-8") as f:
                        text = f.read()
                    text = re.sub(r"^((?:final |abstract )?(?:class|interface|enum|record) " + name + r"\b)",
                                  r"public \1", text, flags=re.M)
                    with open(top, "w", encoding="utf-8") as f:
                        f.write(text)
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # members of a top-level class are indented 4 spaces, of a class nested in it 8
    indent = " " * (4 * (len(parts) - i + 1))
    for name in names:
        decl = re.compile(
            r"^(" + indent + r")(?! )((?:static |final |abstract |synchronized |default |sealed |volatile )*)"
            r"((?:class|record|interface|enum) " + name + r"\b"  # nested type
            r"|" + name + r"\("  # constructor
            r"|(?!return |throw |new |private |public |protected |else |case |yield )"
            r"(?:<[^>]+> )?[\w.<>\[\], ?]+? " + name + r"\s*(?:\(|=|;))",  # method or field
            re.M)
        text, n = decl.subn(lambda m: m.group(1) + "public " + m.group(2) + m.group(3), text)
        if n == 0 and not re.search(r"public [^\n(=;]*\b" + name + r"\b", text):
            sys.exit("no declaration of " + name + " in " + path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def pkg(sub):
    return OLD + ("." + sub if sub else "")


def git_mv(src, dst):
    if os.path.exists(dst) and not os.path.exists(src):
        return False
    if not os.path.exists(src):
        sys.exit("missing: " + src)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    subprocess.run(["git", "mv", src, dst], check=True)
    return True


def main():
    moved = {}  # new path -> new package
    paths = {}  # old path -> new path (cited in comments and docs)
    new_fqn = {}  # simple name -> new fully-qualified name (main classes)
    test_fqn = {}  # the same for the test classes (tests use each other: FlowtraceProcess, PseudoTerminal)
    old_fqn = {}  # old fully-qualified name -> new one
    for table, old_dir, new_dir in ((MAIN, OLD_MAIN, NEW_MAIN), (TEST, OLD_TEST, NEW_TEST)):
        for sub, names in table.items():
            for entry in names:
                name = os.path.basename(entry)
                src = os.path.join(old_dir, entry + ".java")
                dst = os.path.join(new_dir, sub.replace(".", "/"), name + ".java")
                git_mv(src, dst)
                paths[src] = dst
                moved[dst] = pkg(sub)
                old_pkg = OLD + (".report" if entry.startswith("report/") else "")
                old_fqn[old_pkg + "." + name] = pkg(sub) + "." + name
                (new_fqn if table is MAIN else test_fqn)[name] = pkg(sub) + "." + name
    for src, sub in AGENT_TESTS.items():
        dst = os.path.join(NEW_TEST, sub, os.path.basename(src))
        git_mv(src, dst)
        moved[dst] = pkg(sub)
    for src, dst in RESOURCES.items():
        git_mv(src, dst)

    files = subprocess.run(["git", "ls-files", "*.java"], check=True, capture_output=True, text=True).stdout.split()
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        orig = text
        # imports and qualified names of moved classes (longest first: io.flowtrace.cli.report.X before cli.X)
        for old in sorted(old_fqn, key=len, reverse=True):
            text = re.sub(r"\b" + re.escape(old) + r"\b(?!\.java)", old_fqn[old], text)
        if path in moved:
            new_pkg = moved[path]
            text = re.sub(r"^package [\w.]+;", "package " + new_pkg + ";", text, count=1, flags=re.M)
            own = os.path.basename(path)[:-5]
            # the classes this file used unqualified from the old package (or its own package, agent's tests)
            body = text.split(";", 1)[1]
            visible = dict(new_fqn, **test_fqn) if "/src/test/" in path else new_fqn
            needed = sorted(fqn for name, fqn in visible.items()
                            if name != own and fqn.rsplit(".", 1)[0] != new_pkg
                            and re.search(r"(?<![\w.])" + name + r"\b", body)
                            and ("import " + fqn + ";") not in text)
            if needed:
                imports = "".join("import " + fqn + ";\n" for fqn in needed)
                text = re.sub(r"^(package [\w.]+;\n\n?)", lambda m: m.group(1) + imports, text, count=1, flags=re.M)
            if path.startswith(NEW_MAIN):
                # top-level types public: the packages now split what one package held
                text = re.sub(r"^((?:final |abstract |sealed )?(?:class|interface|enum|record) )",
                              r"public \1", text, flags=re.M)
        if text != orig:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    texts = subprocess.run(["git", "ls-files", "*.java", "*.md", "*.sh", "*.yaml", "*.yml", "*.xml"],
                           check=True, capture_output=True, text=True).stdout.split()
    for path in texts:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = text
        for old in sorted(paths, key=len, reverse=True):
            new = new.replace(old, paths[old])
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    for cls, names in PUBLIC.items():
        make_public(cls, names)


if __name__ == "__main__":
    main()
