"""`contacts_input`: the user's alignment and structure brought into the
build for //proteins:contacts, as the repository @contacts_input.

The front end (proteins/contacts.sh) passes its options as one JSON value in
the environment variable POTTS_CONTACTS (not --repo_env, whose change
between the front end's `bazel run` and its build would make Bazel reload
packages at every call): the files (absolute paths, with their SHA-256, so
that an edited file is fetched again) and the choices (format, query,
models, seeds, ...). The repository holds copies of the files (msa/<name>,
structure/<name>) and options.bzl, whose CONTACTS (None without
POTTS_CONTACTS) proteins/user/BUILD hands to `contact_family`.
"""

def _copy(rctx, src, dest):
    r = rctx.execute(["cp", "--", src, dest])
    if r.return_code != 0:
        fail("contacts_input: cannot copy %s: %s" % (src, r.stderr))

def _contacts_input_impl(rctx):
    value = rctx.os.environ.get("POTTS_CONTACTS", "")
    if not value:
        rctx.file("BUILD.bazel", "")
        rctx.file("options.bzl", "CONTACTS = None\n")
        return
    options = json.decode(value)
    rctx.file("msa/.keep", "")
    rctx.file("structure/.keep", "")
    build = ['package(default_visibility = ["//visibility:public"])']
    _copy(rctx, options["msa"], "msa/" + options["msa_name"])
    build.append('filegroup(name = "msa", srcs = ["msa/%s"])' % options["msa_name"])
    if options.get("pdb"):
        _copy(rctx, options["pdb"], "structure/" + options["pdb_name"])
        build.append('filegroup(name = "structure", srcs = ["structure/%s"])' % options["pdb_name"])
    rctx.file("BUILD.bazel", "\n".join(build) + "\n")
    # The choices only: paths and hashes stay out of the targets.
    choices = {k: v for k, v in options.items() if k not in ["msa", "pdb", "msa_sha256", "pdb_sha256"]}
    rctx.file("options.bzl", "CONTACTS = %r\n" % choices)

contacts_input = repository_rule(
    implementation = _contacts_input_impl,
    environ = ["POTTS_CONTACTS"],
    local = True,
    doc = "The user's alignment, structure and choices for //proteins:contacts.",
)
