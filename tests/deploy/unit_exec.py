#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""unit_exec.py — run a systemd service's ExecStart as systemd would, where systemd cannot run.

The deploy test's "hosts" are network namespaces without their own systemd, so the installed
bulkfleet-agent.service is started by this script instead: the same User=/Group=, the same
Environment= and EnvironmentFile= (systemd's file syntax), the same ExecStart= command line
(systemd's ${VAR} / $VAR expansion rules and %-specifiers), LimitNOFILE= and UMask=. It then
exec()s the program, so the process (and its pid) is the service's main process.

Only the subset of systemd.service(5) and systemd.exec(5) the unit uses is implemented; an
unknown setting that changes the command line or the environment is an error, never ignored.
Sandboxing settings (Protect*, Restrict*, ...) are not reproduced; the test checks the unit
with `systemd-analyze verify` instead.

    unit_exec.py UNIT_FILE            run it (exec)
    unit_exec.py --print UNIT_FILE    print the argv, one per line, and the user; do not run

Exit status 2 on a unit this script cannot reproduce faithfully.
"""
import grp
import os
import pwd
import re
import resource
import shlex
import socket
import sys

# Settings that only restrict the process (enforced by systemd, not reproduced here) or that
# concern the service manager (restart policy, ordering); everything else must be understood.
IGNORED = {
    "Type", "Restart", "RestartSec", "RestartPreventExitStatus", "NoNewPrivileges",
    "ProtectSystem", "ProtectHome", "PrivateTmp", "PrivateDevices", "ProtectKernelTunables",
    "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectClock",
    "ProtectHostname", "RestrictNamespaces", "RestrictRealtime", "RestrictSUIDSGID",
    "LockPersonality", "MemoryDenyWriteExecute", "RestrictAddressFamilies",
    "SystemCallArchitectures", "SystemCallFilter", "CapabilityBoundingSet", "TimeoutStopSec",
    "KillMode", "KillSignal",
}
HANDLED = {"User", "Group", "Environment", "EnvironmentFile", "ExecStart", "LimitNOFILE", "UMask",
           "WorkingDirectory"}


def die(msg):
    print(f"unit_exec: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_unit(path):
    """Returns [(section, key, value)] in file order (continuation lines joined)."""
    entries, section, pending = [], None, ""
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if pending:
            line = pending + line
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("[") and s.endswith("]"):
            section = s[1:-1]
            continue
        if "=" not in s:
            die(f"{path}: cannot parse line: {s}")
        k, v = s.split("=", 1)
        entries.append((section, k.strip(), v.strip()))
    return entries


def specifiers(value):
    """%-specifiers of systemd.unit(5) this unit may use."""
    def sub(m):
        c = m.group(1)
        if c == "%":
            return "%"
        if c == "H":
            return socket.gethostname()
        die(f"unsupported specifier %{c} in {value!r}")
    return re.sub(r"%(.)", sub, value)


def env_assignments(value):
    """Environment=: space-separated, optionally quoted, VAR=VALUE words."""
    out = []
    for word in shlex.split(specifiers(value)) if value else []:
        if "=" not in word:
            die(f"Environment={value!r}: {word!r} is not VAR=VALUE")
        out.append(tuple(word.split("=", 1)))
    return out


def env_file(path):
    """EnvironmentFile= syntax: KEY=VALUE lines, # or ; comments, optional quotes, no expansion."""
    out = []
    for n, raw in enumerate(open(path, encoding="utf-8"), 1):
        s = raw.strip()
        if not s or s[0] in "#;":
            continue
        m = re.match(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$", s)
        if not m:
            die(f"{path}:{n}: not KEY=VALUE: {s}")
        k, v = m.group(1), m.group(2)
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
            q, v = v[0], v[1:-1]
            if q == '"':
                v = re.sub(r'\\(["\\$`])', r"\1", v)
        elif "$" in v or "\\" in v:
            die(f"{path}:{n}: unquoted value with $ or \\ is not reproduced: {s}")
        out.append((k, v))
    return out


def exec_words(value, env):
    """ExecStart=: systemd's splitting and ${VAR} (one word) / $VAR (split) expansion."""
    if value[:1] in "@-:+!":
        die(f"ExecStart prefix {value[0]!r} is not reproduced")
    lex = shlex.shlex(specifiers(value), posix=True, punctuation_chars=False)
    lex.whitespace_split = True
    lex.commenters = ""
    argv = []
    for word in lex:
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word)
        if m:  # $VAR as a word of its own: split at whitespace, zero or more words
            argv.extend(env.get(m.group(1), "").split())
            continue
        if re.search(r"\$(?!\{)", word):
            die(f"ExecStart word {word!r}: $VAR inside a word is not reproduced")
        argv.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda mm: env.get(mm.group(1), ""), word))
    if not argv or not argv[0].startswith("/"):
        die(f"ExecStart={value!r}: the program must be an absolute path")
    return argv


def main():
    args = sys.argv[1:]
    dry = bool(args) and args[0] == "--print"
    if dry:
        args = args[1:]
    if len(args) != 1:
        die("usage: unit_exec.py [--print] UNIT_FILE")
    settings = [(k, v) for sec, k, v in parse_unit(args[0]) if sec == "Service"]
    for k, _ in settings:
        if k not in HANDLED and k not in IGNORED:
            die(f"{args[0]}: [Service] {k}= is not reproduced; teach unit_exec.py or drop it")
    execs = [v for k, v in settings if k == "ExecStart"]
    if len(execs) != 1:
        die(f"{args[0]}: expected exactly one ExecStart=, found {len(execs)}")

    # Environment= first, EnvironmentFile= overrides it (systemd.exec(5)); files in order.
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    for k, v in settings:
        if k == "Environment":
            env.update(env_assignments(v))
    for k, v in settings:
        if k == "EnvironmentFile":
            optional = v.startswith("-")
            path = specifiers(v[1:] if optional else v)
            if not os.path.exists(path):
                if optional:
                    continue
                die(f"EnvironmentFile={path} is missing: systemd would not start the service")
            env.update(env_file(path))
    user = dict(settings).get("User")
    group = dict(settings).get("Group")
    if user:
        try:
            pw = pwd.getpwnam(user)
        except KeyError:
            die(f"User={user} does not exist (the package's postinst creates it)")
        env.update(USER=user, LOGNAME=user, HOME=pw.pw_dir, SHELL=pw.pw_shell)
    argv = exec_words(execs[0], env)
    if dry:
        print("\n".join(argv))
        print(f"user={user or 'root'}")
        return

    nofile = dict(settings).get("LimitNOFILE")
    if nofile:
        n = int(nofile)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
        except (ValueError, PermissionError):
            # without CAP_SYS_RESOURCE (some sandboxes) the hard limit cannot be raised
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            print(f"unit_exec: LimitNOFILE={n} above the hard limit {hard} here; using {hard}",
                  file=sys.stderr)
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    umask = dict(settings).get("UMask")
    if umask:
        os.umask(int(umask, 8))
    os.chdir(dict(settings).get("WorkingDirectory", "/"))
    if user:
        gid = grp.getgrnam(group).gr_gid if group else pw.pw_gid
        os.setgroups([])
        os.initgroups(user, gid)
        os.setgid(gid)
        os.setuid(pw.pw_uid)
    os.execve(argv[0], argv, env)


if __name__ == "__main__":
    main()
