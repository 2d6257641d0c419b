#!/usr/bin/env bash
# //proteins:contacts: the proteins branch of the paper's DAG on a user's own
# alignment. This front end checks the arguments, hands the files and the
# choices to Bazel as one JSON value (the environment variable
# POTTS_CONTACTS: the repository @contacts_input, contacts_input.bzl) and
# builds //proteins/user:user_all: the paper's protein stages from the same macro
# (contact_family, stages/proteins/contacts.bzl), so that steps are cached,
# run side by side on --threads cores, and carry provenance. It then copies
# the outputs to --out.
set -euo pipefail

die() { echo "contacts: $1" >&2; exit "${2:-2}"; }
runfiles="${RUNFILES_DIR:-${TEST_SRCDIR:-$0.runfiles}}/potts_attention"
predictors="$runfiles/proteins/predictors.json"
[[ -r $predictors ]] || die "$predictors not found (run through tools/bazel run //proteins:contacts)" 1

usage() {
  cat <<'USAGE'
usage: tools/bazel run //proteins:contacts -- --msa FILE (--query NAME | --first-residue N)
                                             [--pdb FILE] [--out DIR] [--seeds N] [--models LIST]
                                             [--threads K] [--hold-out] [--quick]

  --msa FILE          the alignment: A2M/aligned FASTA with Pfam's insert convention
                      (lower case and '.' are insert columns), A3M (HHblits, ColabFold:
                      lower-case insertions, rows of different lengths; by the .a3m
                      extension or by content), or a flat .aln file (one aligned
                      sequence per line, the query first)
  --query NAME        FASTA: the query is the first sequence whose name starts with
                      NAME, e.g. RASH_HUMAN/ (A2M: its name must end in /start-end;
                      A3M: default the first sequence, numbered from --first-residue)
  --first-residue N   aln, or an A3M query named without /start-end: the residue
                      number of the query's first residue (default 1)
  --pdb FILE          a PDB file of the query: contacts are scored against it
  --out DIR           where to write (default: ./contacts_out)
  --seeds N           training seeds per masked language model (default 3)
  --threads K         threads of each threaded step (default: this machine's cores);
                      independent steps run side by side
  --models LIST       the predictors to run, comma-separated (default: all of them):
USAGE
  python3 - "$predictors" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1])):
    print("                        %-10s %s" % (p["name"], p["help"]))
PY
  cat <<'USAGE'
                      e.g. --models cm_plm,attention for the two contact models alone;
                      the contact map needs factored and plm
  --hold-out          fit the weighted PLM (cm_plm) on the training clusters only, as the
                      MLM models are (default: every sequence, as contact tools do)
  --quick             the test configurations (short runs), to try the tool out

Writes DIR/<step>/ for every step (its outputs and provenance.json); DIR/top_pairs.csv;
DIR/<run>.mat (the L x L scores, as CCMpred's) and DIR/<run>.rr (CASP RR) for every
run; with --pdb also DIR/precision.csv and the figures DIR/precision.png and (with
factored and plm) DIR/contacts.png. What a choice of predictors cannot make is skipped
with a line saying why. Bazel's cache keeps every step whose inputs are unchanged:
a second run, with --pdb or --hold-out added, reruns only the steps they change.
USAGE
}

msa="" query="" first="" pdb="" out="contacts_out" seeds=3 hold_out=false quick=false
threads=$(nproc 2>/dev/null || echo 1)
models=$(python3 -c 'import json, sys; print(",".join(p["name"] for p in json.load(open(sys.argv[1]))))' "$predictors")
all_models=$models
need() { [[ $# -ge 2 ]] || die "$1 needs a value (--help)"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --msa) need "$@"; msa="$2"; shift 2 ;;
    --query) need "$@"; query="$2"; shift 2 ;;
    --first-residue) need "$@"; first="$2"; shift 2 ;;
    --pdb) need "$@"; pdb="$2"; shift 2 ;;
    --out) need "$@"; out="$2"; shift 2 ;;
    --seeds) need "$@"; seeds="$2"; shift 2 ;;
    --models) need "$@"; models="$2"; shift 2 ;;
    --threads) need "$@"; threads="$2"; shift 2 ;;
    --quick) quick=true; shift ;;
    --hold-out) hold_out=true; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (--help lists them)" ;;
  esac
done
[[ -n $msa ]] || die "--msa FILE is required (--help)"
[[ $seeds =~ ^[1-9][0-9]*$ ]] || die "--seeds must be a positive integer, got '$seeds'"
[[ $threads =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive integer, got '$threads'"
[[ -z $first || $first =~ ^-?[0-9]+$ ]] || die "--first-residue must be an integer, got '$first'"
IFS=, read -r -a chosen <<<"$models"
[[ ${#chosen[@]} -gt 0 ]] || die "--models: no predictor given (--help lists them)"
for m in "${chosen[@]}"; do
  [[ ",$all_models," == *",$m,"* ]] || die "--models: unknown predictor '$m' (one of $all_models)"
done

# Paths given by the user are relative to where they ran `bazel run`.
here="${BUILD_WORKING_DIRECTORY:-$PWD}"
abs() { [[ "$1" = /* ]] && echo "$1" || echo "$here/$1"; }
msa="$(abs "$msa")"
[[ -f $msa && -r $msa ]] || die "--msa: no readable file $msa"
if [[ -n $pdb ]]; then pdb="$(abs "$pdb")"; [[ -f $pdb && -r $pdb ]] || die "--pdb: no readable file $pdb"; fi
out="$(abs "$out")"
case "$msa" in
  *.aln) format=aln; [[ -n $first ]] || die "a flat .aln alignment needs --first-residue N (the query's first residue number)" ;;
  *.a3m) format=a3m ;;
  *) format=auto; [[ -n $query ]] || die "an aligned FASTA file needs --query NAME (the query's name prefix; for A3M, name the file .a3m to default to its first sequence)" ;;
esac
workspace="${POTTS_CONTACTS_WORKSPACE:-${BUILD_WORKSPACE_DIRECTORY:-}}"
[[ -n $workspace && -x $workspace/tools/bazel ]] ||
  die "no workspace: run through tools/bazel run //proteins:contacts (or set POTTS_CONTACTS_WORKSPACE)" 1

# The choices and files as one JSON value (python's json, never by hand).
options=$(python3 - "$msa" "$pdb" "$format" "$query" "${first:-1}" "$models" "$seeds" "$hold_out" "$quick" "$threads" <<'PY'
import hashlib, json, os, sys
msa, pdb, fmt, query, first, models, seeds, hold_out, quick, threads = sys.argv[1:]
def sha(p):
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()
name = os.path.basename(msa)
o = {"msa": msa, "msa_name": name, "msa_sha256": sha(msa), "pdb": pdb, "pdb_name": os.path.basename(pdb),
     "pdb_sha256": sha(pdb) if pdb else "", "format": fmt, "query": query, "first_residue": int(first),
     "models": models.split(","), "seeds": int(seeds), "hold_out": hold_out == "true", "quick": quick == "true",
     "target": os.path.splitext(name)[0], "threads": int(threads)}
print(json.dumps(o, sort_keys=True))
PY
)

# shellcheck disable=SC2206  # the test's flags, split as words
startup=(${POTTS_CONTACTS_STARTUP_FLAGS:-})
# shellcheck disable=SC2206
extra=(${POTTS_CONTACTS_BUILD_FLAGS:-})
# The choices reach the repository rule through the client's environment and
# the thread count as one of them (the stages' attribute): a --repo_env or a
# --//tools:stage_threads that differs from the outer `bazel run`'s would
# make Bazel reload and reanalyse at every call.
echo "contacts: building //proteins/user:user_all (${#chosen[@]} predictors, $threads threads per threaded step)" >&2
(cd "$workspace" && POTTS_CONTACTS=$options tools/bazel ${startup[@]+"${startup[@]}"} build \
  ${extra[@]+"${extra[@]}"} //proteins/user:user_all) ||
  die "a step failed (Bazel's message above names it)" 1
# The build's bazel-bin symlink where it makes one (a second Bazel call,
# `info`, costs about a second), else `info`.
if [[ " ${extra[*]-} " != *" --symlink_prefix="* && -d $workspace/bazel-bin/proteins/user ]]; then
  bin=$(readlink -f "$workspace/bazel-bin")/proteins/user
else
  bin=$(cd "$workspace" && POTTS_CONTACTS=$options tools/bazel ${startup[@]+"${startup[@]}"} info \
    ${extra[@]+"${extra[@]}"} bazel-bin 2>/dev/null)/proteins/user
fi

# DIR/<step>/: each step's outputs, as its record lists them, and the record
# (the family is "family"), for the steps this build made (user_notes.json);
# an output directory may still hold files of an earlier build.
mkdir -p "$out"
python3 - "$bin" "$out" <<'PY'
import json, os, shutil, sys
bin_dir, out = sys.argv[1:]
for target in json.load(open(os.path.join(bin_dir, "user_notes.json")))["steps"]:
    step = "family" if target == "user" else target[len("user_"):]
    src, dest = os.path.join(bin_dir, target), os.path.join(out, step)
    record = os.path.join(src, "provenance.json")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for f in list(json.load(open(record))["outputs"]) + ["provenance.json"]:
        shutil.copyfile(os.path.join(src, f), os.path.join(dest, f))
PY
cp "$out/score/top_pairs.csv" "$out/top_pairs.csv"
for f in "$out"/export/*.mat "$out"/export/*.rr; do cp "$f" "$out/"; done
if [[ -n $pdb ]]; then
  cp "$out/score/precision.csv" "$out/precision.csv"
  cp "$out/precision/user_precision.png" "$out/precision.png"
  [[ ! -f $out/contacts/user_contacts.png ]] || cp "$out/contacts/user_contacts.png" "$out/contacts.png"
fi
python3 - "$bin/user_notes.json" <<'PY'
import json, sys
for note in json.load(open(sys.argv[1]))["skipped"]:
    print("contacts: skipped:", note, file=sys.stderr)
PY
echo "contacts: done; results in $out" >&2
