"""`figure`: one figure of the paper as one `stage` action.

The gnuplot script is a label of its own (wrapped in a filegroup so that the
stage rule passes it as `--in script/<name>.gp=...`): editing it reruns this
figure's action and nothing else. Every figure also reads the settings all
share, `scripts/common.gp` (as `common/common.gp`, run first). Outputs: <name>.png, <name>.pdf, <name>.dat
(the numbers drawn) and summary.json (caption and derived numbers), plus its
provenance record. A figure reads its upstream stages' records
(`reads_records`), which name the stages its caption cites.
"""

load("//tools:stage.bzl", "stage")

def figure(name, config, script, inputs, **kwargs):
    native.filegroup(name = name + "_script", srcs = [script])
    all_inputs = dict(inputs)
    all_inputs[":" + name + "_script"] = "script"
    all_inputs["//stages/figures:common_script"] = "common"
    stage(
        name = name,
        tool = "//stages/figures:figures",
        config = config,
        seed = 0,  # figures draw no random numbers
        inputs = all_inputs,
        outs = [name + ".png", name + ".pdf", name + ".dat", "summary.json"],
        reads_records = True,
        **kwargs
    )
