#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""render_track.py — render a Rally track / OpenSearch Benchmark workload with Jinja2, as the
tools do, for `bulkfleet-coordinator import-rally` (an offline step; nothing of it runs in the
agents or in the coordinator's run path).

    python3 render_track.py TRACK_FILE [--params PARAMS] [--build-flavor F]
                            [--serverless-operator] [--distribution-version V]

What it gives a template is what esrally/track/loader.py (elastic/rally) and
osbenchmark/workload/loader.py (opensearch-project/opensearch-benchmark) give one:
  - `{{ rally.collect(parts="GLOB") }}` / `{{ benchmark.collect(parts="GLOB") }}`: the files the
    glob matches (relative to the including file, sorted), joined with ",\n", inlined before
    rendering (their TemplateSource.replace_includes, recursively), and the macros of
    "rally.helpers" / "benchmark.helpers" (collect, exists_set_param);
  - globals now (time.time()), glob, build_flavor ("default" unless given), serverless_operator
    (false), and the track parameters; filters days_ago, get_start_date, get_end_date
    (Rally's esrally/time.py), version_between (OpenSearch Benchmark); tojson is Jinja's;
  - PARAMS: "k:v,k2:v2" (Rally's --track-params; values: 'quoted' is a string, then int, float,
    true/false, else the string) or a FILE.json holding an object.
The track file is rendered; then every file its JSON names (indices[].body, templates[].template,
composable-templates[].template, component-templates[].template) is rendered the same way.

Output (stdout): one JSON object {"track": "<rendered text>", "files": {"<name as the track
writes it>": "<rendered text>", ...}, "params": [names the templates read], "unused": [given
parameters no template reads]}. Exit 0.
Errors (stderr, exit 2): "FILE:LINE: what (the construct)" for a Jinja syntax or rendering
error, the line in the file it was written in (parts included by collect are mapped back to
their own file); "FILE (rendered, kept in PATH):LINE:COL: not JSON: ..." when the rendered text
is not JSON. Exit 3: python3-jinja2 missing (run scripts/install-deps.sh).
"""

import glob
import json
import os
import re
import sys
import tempfile
import time
import traceback
from datetime import datetime, timedelta, timezone

try:
    import jinja2
    from jinja2 import meta
except ImportError:  # pragma: no cover - depends on the host
    sys.stderr.write("import-rally renders tracks with Jinja2, which is not installed: install "
                     "python3-jinja2 (scripts/install-deps.sh does)\n")
    sys.exit(3)

COLLECT_RE = re.compile(r"{{\ +?(rally|benchmark)\.collect\(parts=\"(.+?(?=\"))\"\)\ +?}}")

MACROS = """
{% macro collect(parts) -%}
    {% set comma = joiner() %}
    {% for part in glob(parts) %}
        {{ comma() }}
        {% include part %}
    {% endfor %}
{%- endmacro %}
{% macro exists_set_param(setting_name, value, default_value=None, comma=True) -%}
    {% if value is defined or default_value is not none %}
        {% if comma %} , {% endif %}
        {% if default_value is not none %}
          "{{ setting_name }}": {{ value | default(default_value) | tojson }}
        {% else %}
          "{{ setting_name }}": {{ value | tojson }}
        {% endif %}
      {% endif %}
{%- endmacro %}
"""


class RenderError(Exception):
    pass


# ---- Rally's date filters (esrally/time.py) -------------------------------------------------
def _to_datetime(val, date_format=None, default_tz=timezone.utc):
    if isinstance(val, datetime):
        return val
    if isinstance(val, (int, float)):
        return datetime.fromtimestamp(val, default_tz)
    if isinstance(val, str):
        ret = datetime.strptime(val, date_format)
        return ret.replace(tzinfo=default_tz) if ret.tzinfo is None else ret
    raise TypeError("Cannot convert unrecognized type '%s' with value '%s' to datetime." %
                    (type(val), str(val)))


def days_ago(start_date, end_date, date_format="%d-%m-%Y", default_tz=timezone.utc):
    start = _to_datetime(start_date, date_format, default_tz)
    end = _to_datetime(end_date, date_format, default_tz)
    return (end - start).days


def get_start_date(the_date, date_format="%Y-%m-%d", default_tz=timezone.utc):
    return _to_datetime(the_date, default_tz=default_tz).strftime(date_format)


def get_end_date(start_date, duration_days=1, date_format="%Y-%m-%d", default_tz=timezone.utc):
    d = _to_datetime(start_date, default_tz=default_tz) + timedelta(days=duration_days)
    return d.strftime(date_format)


def version_between(version, frm, to):
    v = list(map(int, str(version).split(".")))
    return list(map(int, frm.split("."))) <= v <= list(map(int, to.split(".")))


# ---- parameters ---------------------------------------------------------------------------
def _convert(v):
    if v.startswith("'") and v.endswith("'") and len(v) >= 2:
        return v[1:-1]
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    return v


def parse_params(arg):
    """Rally's --track-params: a FILE.json holding an object, or k:v,k2:v2."""
    if not arg:
        return {}
    if os.path.isfile(arg) or arg.endswith(".json"):
        try:
            with open(arg, encoding="utf-8") as f:
                obj = json.load(f)
        except OSError as e:
            raise RenderError("--track-params %s: %s" % (arg, e.strerror))
        except json.JSONDecodeError as e:
            raise RenderError("%s:%d:%d: --track-params file is not JSON: %s" %
                              (arg, e.lineno, e.colno, e.msg))
        if not isinstance(obj, dict):
            raise RenderError("%s: --track-params file must hold a JSON object "
                              "({\"number_of_shards\": 2, ...})" % arg)
        return obj
    out = {}
    for kv in arg.split(","):
        if not kv.strip():
            continue
        if ":" not in kv:
            raise RenderError("--track-params: '%s' is not key:value; write e.g. "
                              "--track-params number_of_shards:2,bulk_size:1000 or a FILE.json"
                              % kv)
        k, v = kv.split(":", 1)
        out[k.strip()] = _convert(v.strip())
    return out


# ---- assembling: collect(parts=...) inlined, with a map back to each line's own file -------
def assemble(path, depth=0):
    """The file's text with every collect(parts=GLOB) replaced by the matched files' texts
    (",\\n"-joined, recursively), and for each line of the result its (file, line)."""
    if depth > 20:
        raise RenderError("%s: collect(parts=...) nests more than 20 deep (a file that "
                          "includes itself?)" % path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RenderError("%s: %s" % (path, e.strerror))
    except UnicodeDecodeError as e:
        raise RenderError("%s: not UTF-8 text (byte %d)" % (path, e.start))
    base = os.path.dirname(path)
    out_text = []
    out_map = []  # (file, line) of every finished line of the result
    line = 1  # the line of this file the text being copied is on
    cur = (path, 1)  # (file, line) of the result's unfinished line

    def own(seg):
        nonlocal line, cur
        out_text.append(seg)
        for _ in range(seg.count("\n")):
            out_map.append(cur)
            line += 1
            cur = (path, line)

    pos = 0
    for m in COLLECT_RE.finditer(text):
        own(text[pos:m.start()])
        pattern = os.path.join(base, m.group(2))
        files = sorted(glob.glob(pattern))
        if not files:
            # an error only where the template renders it (Rally's collect() is a macro: one
            # inside an {% if %} branch not taken, as http_logs' generated_corpus, is never run)
            msg = ("%s:%d: %s.collect(parts=\"%s\") matches no file (looked for %s)"
                   % (path, line, m.group(1), m.group(2), pattern))
            own("{{ _bf_collect_none(%s) }}" % json.dumps(msg))
            pos = m.end()
            continue
        for i, fn in enumerate(files):
            if i:
                out_text.append(",\n")
                out_map.append(cur)
            t, mp = assemble(fn, depth + 1)
            out_text.append(t)
            cur = mp[0]  # the part's first line continues the including line
            for e in mp[1:]:
                out_map.append(cur)
                cur = e
        pos = m.end()  # the rest of the including line continues the part's last line
    own(text[pos:])
    out_map.append(cur)
    return "".join(out_text), out_map


def where(amap, lineno, fallback):
    if lineno and 1 <= lineno <= len(amap):
        f, ln = amap[lineno - 1]
        return "%s:%d" % (f, ln)
    return "%s:%s" % (fallback, lineno if lineno else "?")


def source_line(amap, lineno):
    if not lineno or lineno > len(amap):
        return ""
    f, ln = amap[lineno - 1]
    try:
        with open(f, encoding="utf-8") as fh:
            for i, s in enumerate(fh, 1):
                if i == ln:
                    s = s.strip()
                    return " (%s)" % (s[:100] + ("..." if len(s) > 100 else ""))
    except OSError:
        pass
    return ""


def make_env(base, params, opts):
    env = jinja2.Environment(loader=jinja2.ChoiceLoader([
        jinja2.DictLoader({"rally.helpers": MACROS, "benchmark.helpers": MACROS}),
        jinja2.FileSystemLoader(base)]))
    for k, v in params.items():
        env.globals[k] = v

    def relative_glob(f):
        return [os.path.relpath(p, base) for p in glob.glob(os.path.join(base, f))]

    def collect_none(msg):
        raise RenderError(msg)

    env.globals.update({"now": time.time(), "glob": relative_glob,
                        "_bf_collect_none": collect_none,
                        "build_flavor": opts["build_flavor"],
                        "serverless_operator": opts["serverless_operator"]})
    if opts.get("distribution_version") and "distribution_version" not in params:
        env.globals["distribution_version"] = opts["distribution_version"]
    env.filters.update({"days_ago": days_ago, "get_start_date": get_start_date,
                        "get_end_date": get_end_date, "version_between": version_between})
    return env


def render_file(path, params, opts, used):
    """(rendered text, line map of the assembled source) of one template file."""
    text, amap = assemble(path)
    env = make_env(os.path.dirname(path), params, opts)
    try:
        # parsed without the parameters: names given as globals are not "undeclared"
        ast = make_env(os.path.dirname(path), {}, opts).parse(text)
        used.update(meta.find_undeclared_variables(ast))
        tmpl = env.from_string(text)
    except jinja2.TemplateSyntaxError as e:
        raise RenderError("%s: Jinja syntax error: %s%s" %
                          (where(amap, e.lineno, path), e.message, source_line(amap, e.lineno)))
    try:
        return tmpl.render(), amap
    except RenderError:
        raise
    except jinja2.TemplateError as e:
        lineno = None
        for fr in traceback.extract_tb(e.__traceback__):
            if fr.filename == "<template>":
                lineno = fr.lineno
        raise RenderError("%s: Jinja error: %s%s" % (where(amap, lineno, path), e,
                                                     source_line(amap, lineno)))
    except Exception as e:  # a filter or a Python expression in the template failed
        lineno = None
        for fr in traceback.extract_tb(e.__traceback__):
            if fr.filename == "<template>":
                lineno = fr.lineno
        raise RenderError("%s: the template failed: %s: %s%s" %
                          (where(amap, lineno, path), type(e).__name__, e,
                           source_line(amap, lineno)))


def check_json(path, rendered, amap=None):
    """The rendered text as JSON, else a RenderError naming the rendered line (and the source
    line it came from when rendering kept the line count, as a template without loops does)."""
    try:
        return json.loads(rendered)
    except json.JSONDecodeError as e:
        fd, keep = tempfile.mkstemp(prefix="bulkfleet-rendered-",
                                    suffix="-" + os.path.basename(path))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(rendered)
        lines = rendered.split("\n")
        shown = lines[e.lineno - 1].strip()[:100] if e.lineno <= len(lines) else ""
        origin = ""
        if amap and len(amap) == len(lines) and e.lineno <= len(amap):
            origin = "; written at %s:%d" % amap[e.lineno - 1]
        raise RenderError("%s (rendered, kept in %s):%d:%d: not JSON: %s (%s)%s" %
                          (path, keep, e.lineno, e.colno, e.msg, shown, origin))


def main(argv):
    args = argv[1:]
    opts = {"build_flavor": "default", "serverless_operator": False,
            "distribution_version": None}
    params_arg = None
    track = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--params", "--build-flavor", "--distribution-version") and i + 1 < len(args):
            if a == "--params":
                params_arg = args[i + 1]
            elif a == "--build-flavor":
                opts["build_flavor"] = args[i + 1]
            else:
                opts["distribution_version"] = args[i + 1]
            i += 2
            continue
        if a == "--serverless-operator":
            opts["serverless_operator"] = True
        elif track is None and not a.startswith("--"):
            track = a
        else:
            sys.stderr.write("usage: render_track.py TRACK_FILE [--params K:V,...|FILE.json] "
                             "[--build-flavor F] [--serverless-operator] "
                             "[--distribution-version V]\n")
            return 2
        i += 1
    if track is None:
        sys.stderr.write("usage: render_track.py TRACK_FILE [--params ...]\n")
        return 2
    try:
        params = parse_params(params_arg)
        used = set()
        rendered, amap = render_file(track, params, opts, used)
        doc = check_json(track, rendered, amap)
        files = {}
        base = os.path.dirname(track)
        if isinstance(doc, dict):
            for key, field in (("indices", "body"), ("templates", "template"),
                               ("composable-templates", "template"),
                               ("component-templates", "template")):
                for ent in doc.get(key) or []:
                    name = ent.get(field) if isinstance(ent, dict) else None
                    if not isinstance(name, str) or name in files:
                        continue
                    p = os.path.join(base, name)
                    if not os.path.isfile(p):
                        continue  # the importer says which file is missing, where it is named
                    r, rmap = render_file(p, params, opts, used)
                    check_json(p, r, rmap)
                    files[name] = r
        internal = {"now", "glob", "build_flavor", "serverless_operator", "rally", "benchmark",
                    "distribution_version"}
        out = {"track": rendered, "files": files,
               "params": sorted(used - internal),
               "unused": sorted(set(params) - used)}
        json.dump(out, sys.stdout)
        return 0
    except RenderError as e:
        sys.stderr.write("%s\n" % e)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
