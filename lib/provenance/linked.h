// The rendered literate paper: every filled number a link to its source.
//
// linked_markdown fills the template as fill_placeholders does, but writes
// each value as a Markdown link `[value](href "title"){.num}`: href is the
// file of results/ the value comes from (the stage's summary.json, or its
// provenance record for provenance.* paths), relative to results/; the
// title names the key, the file, the stage target and its record. Values
// are escaped so that pandoc shows them as written (ε*, products, |x|), and
// so are ε* and w* in the template's own text.
// Then every `results/<file>` in backticks becomes a link to that file, and
// every figure `![alt](figures/N.png)` links to its PDF and is followed by
// links to its data (N.dat), caption and numbers (N.summary.json) and
// provenance record.
//
// Tested by //lib/provenance:linked_test.
#pragma once
#include <map>
#include <string>

#include "lib/provenance/literate.h"

namespace potts::provenance {

// Backslash-escapes the characters Markdown would read as markup.
std::string markdown_escaped(const std::string& text);

// A number the DAG does not compute, marked in the template by its kind as
// a Pandoc span: [0.03]{.param src="stages/x/configs/y.json" key="a.b"}
// (a parameter: the configuration file and key that set it),
// [0.1]{.rule src="lib/claims/claims.h"} (a convention or threshold: where
// the rule is stated), [0.3]{.cite src="https://arxiv.org/abs/..."} (a
// number quoted from a reference). Each becomes a link of that class: to
// src relative to the repository (results/ is one level down) or, for
// "#anchor" and http(s) sources, as written; the title says the kind.
// Plain text otherwise unchanged.
std::string linked_spans(const std::string& text);

std::string linked_markdown(const std::string& text, const std::map<std::string, StageDocs>& stages,
                            const std::string& origin);

}  // namespace potts::provenance
