"""`record_inputs_test`: no science stage's action reads a provenance record.

An aspect walks the DAG upstream of `targets` through the stage rule's
`inputs` and reads each stage's registered Stage action (`target.actions`,
the action graph `bazel aquery` prints). The test it writes fails, naming
each stage, if an action that is not a presentation stage (`reads_records`:
the figures, the paper) has a provenance.json among its inputs, or if fewer
than `min_stages` stages were seen (the walk itself broke).
"""

RecordInputsInfo = provider(fields = {"lines": "depset of 'science|presentation <n> <label>' lines"})

def _record_inputs_aspect_impl(target, ctx):
    lines = []
    if ctx.rule.kind == "_stage":
        for a in target.actions:
            if a.mnemonic != "Stage":
                continue
            records = [f for f in a.inputs.to_list() if f.basename == "provenance.json"]
            kind = "presentation" if ctx.rule.attr.reads_records else "science"
            lines.append("%s %d %s" % (kind, len(records), target.label))
    deps = []
    for a in ["inputs", "targets"]:
        v = getattr(ctx.rule.attr, a, None)
        if type(v) == "dict":
            deps += v.keys()
    deps.append(getattr(ctx.rule.attr, "src", None))
    infos = [d[RecordInputsInfo] for d in deps if d != None and type(d) == "Target" and RecordInputsInfo in d]
    return [RecordInputsInfo(lines = depset(lines, transitive = [i.lines for i in infos]))]

_record_inputs_aspect = aspect(
    implementation = _record_inputs_aspect_impl,
    attr_aspects = ["inputs", "src", "targets"],
)

def _record_inputs_test_impl(ctx):
    lines = sorted(depset(transitive = [t[RecordInputsInfo].lines for t in ctx.attr.targets]).to_list())
    report = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(report, "\n".join(lines) + "\n")
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, is_executable = True, content = """#!/usr/bin/env bash
set -euo pipefail
report=$(dirname "$0")/{report}
[[ -f $report ]] || report=$TEST_SRCDIR/$TEST_WORKSPACE/{short}
science=$(grep -c '^science ' "$report" || true)
presentation=$(grep -c '^presentation ' "$report" || true)
echo "stage actions seen: $science science, $presentation presentation (figures, the paper)"
bad=$(awk '$1 == "science" && $2 > 0 {{ print "  " $3 " reads " $2 " provenance record(s)" }}' "$report")
if [[ -n $bad ]]; then
  echo "FAIL: science stages whose action takes an upstream provenance.json as an input:"
  echo "$bad"
  exit 1
fi
if (( science < {min} )); then
  echo "FAIL: only $science science stages seen; expected at least {min} (is the aspect still walking the DAG?)"
  exit 1
fi
echo "no science stage's action has a provenance.json among its inputs"
""".format(report = report.basename, short = report.short_path, min = ctx.attr.min_stages))
    return [DefaultInfo(executable = script, runfiles = ctx.runfiles(files = [report]))]

record_inputs_test = rule(
    implementation = _record_inputs_test_impl,
    attrs = {
        "targets": attr.label_list(aspects = [_record_inputs_aspect]),
        "min_stages": attr.int(mandatory = True),
    },
    test = True,
)
